// What the Node tests share: a private home for engram, and `engram serve`
// started on a free loopback port and stopped again.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A new empty home (ENGRAM_HOME, HOME, the configuration file) whose
// embedded model is read from `models`; the sanitizer settings of the test
// run are passed on. Returns {home, env}.
export function privateHome(prefix, models) {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ENGRAM_HOME: home,
    ENGRAM_CONFIG: join(home, "config.toml"),
    ENGRAM_EMBED_MODELS_DIR: models,
  };
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(ASAN|UBSAN|LSAN)_/.test(k)) env[k] = v;
  }
  return { home, env };
}

// Starts `engram serve --port 0 ARGS...` and resolves, once it listens, to
// {child, port, url, stop}: url is where it says it serves
// (http://127.0.0.1:PORT unless ARGS name another --host); stop() sends
// SIGTERM and waits for the exit.
export async function startServe(engram, args, env) {
  const child = spawn(engram, ["serve", "--port", "0", ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      err += chunk;
      const m = err.match(/serving (http:\/\/[^\s/]+:\d+)/);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`engram serve exited with ${code}: ${err}`)));
    setTimeout(() => reject(new Error(`engram serve did not start: ${err}`)), 60000);
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  return {
    child,
    port: Number(new URL(url).port),
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
