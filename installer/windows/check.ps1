<#
.SYNOPSIS
    Parses the installer scripts with PowerShell's own parser; prints each syntax error.

.DESCRIPTION
    The manual check on Windows (or anywhere pwsh runs); CI on Linux parses the same files
    with a PowerShell grammar instead (tests/test_installer.py).

        powershell -ExecutionPolicy Bypass -File installer\windows\check.ps1
#>
$failed = $false
foreach ($script in Get-ChildItem -Path $PSScriptRoot -Filter '*.ps1') {
    $tokens = $null
    $errors = $null
    [System.Management.Automation.Language.Parser]::ParseFile($script.FullName, [ref]$tokens, [ref]$errors) |
        Out-Null
    foreach ($e in $errors) {
        Write-Host "$($script.Name):$($e.Extent.StartLineNumber): $($e.Message)"
        $failed = $true
    }
}
if ($failed) { exit 1 }
Write-Host 'All installer scripts parse.'
