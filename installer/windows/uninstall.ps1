<#
.SYNOPSIS
    Removes what install.ps1 installed for the current user.

.DESCRIPTION
    Removes the environment (%LOCALAPPDATA%\tray-reader) and the Start-menu and Startup
    shortcuts. Your voices and settings (%APPDATA%\tray-reader) stay unless you pass -Purge.

        powershell -ExecutionPolicy Bypass -File installer\windows\uninstall.ps1 [-Purge]
#>
[CmdletBinding()]
param([switch]$Purge)

$ErrorActionPreference = 'Stop'
$AppDir = Join-Path $env:LOCALAPPDATA 'tray-reader'
$DataDir = Join-Path $env:APPDATA 'tray-reader'
$Programs = Join-Path $env:APPDATA 'Microsoft\Windows\Start Menu\Programs'

# Ask a running instance to quit: it holds files in the environment open.
$exe = Join-Path $AppDir 'venv\Scripts\tray-reader.exe'
if (Test-Path $exe) {
    & $exe ctl quit 2>$null | Out-Null
    Start-Sleep -Seconds 1
}

$paths = @(
    (Join-Path $Programs 'tray-reader.lnk'),
    (Join-Path $Programs 'Startup\tray-reader.lnk'),
    $AppDir
)
if ($Purge) { $paths += $DataDir }
foreach ($path in $paths) {
    if (Test-Path $path) {
        Remove-Item -Recurse -Force $path
        Write-Host "removed $path"
    }
}
if (-not $Purge -and (Test-Path $DataDir)) {
    Write-Host "kept your voices and settings: $DataDir (remove them with -Purge)"
}
Write-Host 'tray-reader is uninstalled.'
