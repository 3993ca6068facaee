"""`engram serve` as a child process of a bench script, on loopback.

ServeProcess(name, engram, env, log_path) serves on a free port of
127.0.0.1 kept across restarts; start() waits until /healthz answers (or
exits naming the log when the server does not come up by `deadline`, a
time.monotonic() value), kill() sends SIGKILL, stop() SIGTERM and returns
the exit status.
"""
import http.client
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeProcess:
    def __init__(self, name, engram, env, log_path):
        self.name, self.engram, self.env, self.log_path = name, engram, env, log_path
        self.port = free_port()
        self.proc = None

    def start(self, deadline):
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen([self.engram, "serve", "--port", str(self.port)],
                                         env=self.env, stdout=log, stderr=log)
        while time.monotonic() < deadline:
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise SystemExit(f"{self.name} exited with {self.proc.returncode} on start; "
                                 f"see {self.log_path}")
            time.sleep(0.02)
        raise SystemExit(f"{self.name} did not come up in time; see {self.log_path}")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)
