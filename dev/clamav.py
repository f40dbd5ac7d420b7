"""`python -m dev.clamav --dir data/clamav`: ClamAV's daemon with a signature database that works offline.

Development and test tooling, never imported by the product. The database is built here with ClamAV's own
`sigtool` from the EICAR test file (a body signature from `sigtool --hex-dump`, and its MD5 signature from
`sigtool --md5`), so `make run` and the tests detect the EICAR test file without downloading anything.
Production runs clamd with freshclam's databases instead (docs/deploy.md). `start` is what the test fixture
uses: clamd in the foreground with its own socket and configuration in the given folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

# The EICAR test file (eicar.org): every anti-virus reports it, and it does nothing.
EICAR = rb"X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*"
SIGNATURE_NAME = "Eicar-Test-Signature"
START_SECONDS = 60


def build_database(directory: Path) -> Path:
    """Write the offline signature database into `directory`/db (again each time: it is a few bytes)."""
    db = directory / "db"
    db.mkdir(parents=True, exist_ok=True)
    sample = directory / "eicar.com"
    sample.write_bytes(EICAR)
    try:
        hex_dump = subprocess.run(["sigtool", "--hex-dump"], input=EICAR, capture_output=True, check=True).stdout
        md5 = subprocess.run(["sigtool", "--md5", str(sample)], capture_output=True, check=True, text=True).stdout
    finally:
        sample.unlink()
    md5_hash, size, _ = md5.strip().split(":", 2)
    (db / "offline.ndb").write_text(f"{SIGNATURE_NAME}:0:*:{hex_dump.decode().strip()}\n")
    (db / "offline.hdb").write_text(f"{md5_hash}:{size}:{SIGNATURE_NAME}\n")
    return db


def write_config(directory: Path) -> tuple[Path, Path]:
    """clamd's configuration for a daemon of its own in `directory`; answers (config, socket path)."""
    directory = directory.resolve()
    db = build_database(directory)
    sock = directory / "clamd.sock"
    tmp = directory / "tmp"
    tmp.mkdir(exist_ok=True)
    config = directory / "clamd.conf"
    user = "" if os.geteuid() != 0 else "User root\n"
    config.write_text(
        f"LocalSocket {sock}\nLocalSocketMode 660\nDatabaseDirectory {db}\nTemporaryDirectory {tmp}\n"
        f"Foreground yes\nLogFile {directory / 'clamd.log'}\nLogTime yes\n{user}"
        "StreamMaxLength 200M\nMaxScanSize 400M\nMaxFileSize 200M\nSelfCheck 3600\n"
    )
    return config, sock


def _answers(sock: Path) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(2)
            client.connect(str(sock))
            client.sendall(b"zPING\0")
            return client.recv(16).startswith(b"PONG")
    except OSError:
        return False


def start(directory: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """clamd running in the background with its own socket under `directory`, once it answers PING."""
    if shutil.which("clamd") is None and not Path("/usr/sbin/clamd").exists():
        raise RuntimeError("clamd is not installed: scripts/setup.sh installs Debian's clamav-daemon")
    config, sock = write_config(directory)
    sock.unlink(missing_ok=True)
    clamd = shutil.which("clamd") or "/usr/sbin/clamd"
    process = subprocess.Popen([clamd, "--config-file", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + START_SECONDS
    while not _answers(sock):
        if process.poll() is not None:
            raise RuntimeError(f"clamd stopped: {process.stderr.read().decode() if process.stderr else ''}")
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("clamd did not answer within a minute")
        time.sleep(0.05)
    return process, sock


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="data/clamav", help="folder for the database, configuration and socket")
    args = parser.parse_args()
    process, sock = start(Path(args.dir))
    print(f"clamd answering on {sock}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: stop(process))
    try:
        process.wait()
    except KeyboardInterrupt:
        stop(process)


if __name__ == "__main__":
    main()
