#!/usr/bin/env node
// Runs the rein binary that this platform's package carries (rein-linux-x64, …), as codex's npm
// package does: npm installs only the optional dependency whose `os` and `cpu` match.
"use strict";
const { spawnSync } = require("node:child_process");

const packages = {
  "linux-x64": "rein-linux-x64",
  "linux-arm64": "rein-linux-arm64",
  "darwin-arm64": "rein-darwin-arm64",
  "darwin-x64": "rein-darwin-x64",
};
const platform = `${process.platform}-${process.arch}`;
const name = packages[platform];
if (!name) {
  console.error(`rein: no prebuilt rein for ${platform}; build it: cargo install rein-cli --locked`);
  process.exit(1);
}
let binary;
try {
  binary = require.resolve(`${name}/bin/rein`);
} catch {
  console.error(
    `rein: the package ${name} is not installed (npm skipped the optional dependency); ` +
      "install again without --omit=optional",
  );
  process.exit(1);
}
const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(`rein: cannot run ${binary}: ${run.error.message}`);
  process.exit(1);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status ?? 1);
