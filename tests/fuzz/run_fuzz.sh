#!/usr/bin/env bash
# Builds the webhook event parser fuzz target with clang + libFuzzer (ASan,
# UBSan) and runs it for a bounded time, seeded with every payload of
# @octokit/webhooks-examples. Usage: tests/fuzz/run_fuzz.sh [SECONDS] [BUILD_DIR]
# Exit 0 when no crash was found in the time given.
set -euo pipefail
seconds="${1:-20}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${2:-$root/build/fuzz}"
mkdir -p "$out/corpus"
cxx="${CLANGXX:-clang++}"
command -v "$cxx" >/dev/null || { echo "run_fuzz: $cxx not found (Debian package clang)" >&2; exit 3; }

# Only what the parser and the router need, compiled with the fuzzer's instrumentation.
sources=(webhooks/webhook_event.cpp webhooks/router.cpp webhooks/job.cpp webhooks/trust_policy.cpp
         bot/result_marker.cpp)
"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root" "${sources[@]/#/$root/}" "$root/tests/fuzz/webhook_event_fuzz.cpp" \
  -o "$out/webhook_event_fuzz"

# Seeds: real payloads, one file per example, prefixed with the byte that selects their event.
examples="$root/tests/node_modules/@octokit/webhooks-examples/api.github.com/index.json"
if [ -f "$examples" ] && [ -z "$(ls -A "$out/corpus")" ]; then
  node -e '
    const fs = require("fs");
    const names = ["pull_request", "push", "issue_comment", "check_run", "ping", "star"];
    const all = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    let n = 0;
    for (const e of all) {
      const i = names.indexOf(e.name);
      if (i < 0) continue;
      for (const p of e.examples) {
        const body = JSON.stringify(p);
        if (body.length > 60000) continue;
        fs.writeFileSync(`${process.argv[2]}/seed-${n++}`, Buffer.concat([Buffer.from([i]), Buffer.from(body)]));
      }
    }' "$examples" "$out/corpus"
fi
cd "$out"
exec ./webhook_event_fuzz -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
  -print_final_stats=1 corpus
