/*
  Dangerous code in agent files (services/scanning/code.py). Each match is a `code` finding: the file is
  flagged and an admin decides. Change a rule and every stored file is scanned again (the rules' hash is part
  of each verdict's engines).
*/

rule reverse_shell
{
    meta:
        description = "Opens a shell for a remote host (reverse shell)"
    strings:
        $dev_tcp = /\/dev\/(tcp|udp)\/[A-Za-z0-9.\-]{1,253}\/[0-9]{1,5}/
        $nc_exec = /\b(nc|ncat|netcat)\b[^\n]{0,80}\s-(e|c)\s*\/?(bin\/)?(ba|z|da)?sh\b/
        $dup2 = /os\.dup2\s*\(\s*\w+\.fileno\s*\(\s*\)\s*,\s*[012]\s*\)/
        $pty = /pty\.spawn\s*\(\s*['"]\/bin\/(ba|z|da)?sh['"]/
        $mkfifo = /mkfifo\s+\S+[^\n]{0,80}\|\s*\/bin\/(ba|z|da)?sh\s+-i/
        $js_spawn = /child_process[^\n]{0,200}spawn\s*\(\s*['"]\/bin\/(ba|z|da)?sh['"][^\n]{0,300}net\.Socket/
    condition:
        any of them
}

rule download_piped_to_shell
{
    meta:
        description = "Downloads a script and runs it in a shell (curl|sh, wget|sh)"
    strings:
        $pipe = /\b(curl|wget)\b[^\n|;&]{0,300}\|\s*(sudo\s+)?(\/usr)?(\/bin\/)?(ba|z|da|k)?sh\b/
        $subst = /\b(ba|z|da)?sh\s+(-c\s+)?["']?\$\(\s*(curl|wget)\b/
        $process = /\b(ba|z|da)?sh\s+<\(\s*(curl|wget)\b/
    condition:
        any of them
}

rule crypto_miner
{
    meta:
        description = "Talks to a cryptocurrency mining pool or starts a miner"
    strings:
        $stratum = /stratum\+(tcp|ssl|tls):\/\//
        $xmrig = "xmrig" nocase
        $pool1 = "supportxmr.com" nocase
        $pool2 = "nanopool.org" nocase
        $pool3 = "moneroocean.stream" nocase
        $pool4 = "minexmr.com" nocase
        $pool5 = "hashvault.pro" nocase
        $pool6 = "2miners.com" nocase
        $pool7 = "f2pool.com" nocase
        $pool8 = "nicehash.com" nocase
        $pool9 = "unmineable.com" nocase
    condition:
        any of them
}

rule exec_of_encoded_blob
{
    meta:
        description = "Runs code decoded from a base64 or hex blob (exec/eval)"
    strings:
        $py = /\b(exec|eval|compile)\s*\(\s*(__import__\s*\(\s*['"](base64|binascii|codecs|zlib)['"]\s*\)\.|base64\.|binascii\.|codecs\.|zlib\.|bytes\.fromhex|bytearray\.fromhex)\s*(b64decode|b32decode|b85decode|a85decode|decodebytes|unhexlify|a2b_hex|a2b_base64|decode|decompress|\()/
        $py_marshal = /\bexec\s*\(\s*marshal\.loads\s*\(/
        $js_atob = /\beval\s*\(\s*atob\s*\(/
        $js_buffer = /\b(eval|Function)\s*\(\s*Buffer\.from\s*\([^\n]{0,2000}['"](base64|hex)['"]\s*\)/
        $js_function = /new\s+Function\s*\(\s*atob\s*\(/
    condition:
        any of them
}

rule shell_of_downloaded_content
{
    meta:
        description = "Runs downloaded content with os.system, subprocess or exec"
    strings:
        $direct = /\b(os\.system|os\.popen|subprocess\.(run|call|Popen|check_output|check_call|getoutput)|exec|eval)\s*\([^\n]{0,200}\b(requests\.get|requests\.post|urlopen|urllib\.request\.urlopen|httpx\.get|urllib2\.urlopen)\s*\(/
        $fetch = /\b(requests\.get|urlopen|httpx\.get|urllib\.request\.urlopen)\s*\(/
        $run_text = /\b(os\.system|os\.popen|subprocess\.(run|call|Popen|check_output|check_call|getoutput)|exec)\s*\(\s*\w+\.(text|content|read\s*\(\s*\))/
    condition:
        $direct or ($fetch and $run_text)
}
