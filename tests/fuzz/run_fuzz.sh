#!/usr/bin/env bash
# Builds a libFuzzer target with clang (ASan, UBSan) and runs it for a bounded
# time. Targets: webhook_event (the event parser and the router, seeded with
# every payload of @octokit/webhooks-examples) and request_head (the HTTP
# front's head scanner and strict check, seeded with a few heads).
# Usage: tests/fuzz/run_fuzz.sh [SECONDS] [BUILD_DIR] [TARGET]
# Exit 0 when no crash was found in the time given.
set -euo pipefail
seconds="${1:-20}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${2:-$root/build/fuzz}"
target="${3:-webhook_event}"
cxx="${CLANGXX:-clang++}"
command -v "$cxx" >/dev/null || { echo "run_fuzz: $cxx not found (Debian package clang)" >&2; exit 3; }
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I"$root")

case "$target" in
  webhook_event)
    mkdir -p "$out/corpus"
    # Only what the parser and the router need, compiled with the fuzzer's instrumentation.
    sources=(webhooks/webhook_event.cpp webhooks/router.cpp webhooks/job.cpp webhooks/trust_policy.cpp
             bot/result_marker.cpp)
    "$cxx" "${flags[@]}" "${sources[@]/#/$root/}" "$root/tests/fuzz/webhook_event_fuzz.cpp" \
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
    ;;
  request_head)
    corpus="$out/corpus_head"
    mkdir -p "$corpus"
    "$cxx" "${flags[@]}" "$root/webhooks/request_head.cpp" "$root/tests/fuzz/request_head_fuzz.cpp" \
      -o "$out/request_head_fuzz"
    # Seeds: the first byte splits the bytes in two arrivals; then a head as GitHub
    # sends it, and heads near each refusal (both lengths, chunked, bare LF, folding).
    if [ -z "$(ls -A "$corpus")" ]; then
      n=0
      for head in \
        'POST /webhook HTTP/1.1\r\nHost: kgate.example\r\nContent-Type: application/json\r\nX-GitHub-Event: ping\r\nContent-Length: 2\r\n\r\n{}' \
        'POST /webhook HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n' \
        'POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n' \
        'GET /healthz HTTP/1.0\r\n\r\n' \
        'POST /webhook HTTP/1.1\nHost: x\nContent-Length: 0\n\n' \
        'POST /webhook HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\nContent-Length: +7\r\n\r\n' \
        '\r\n\r\nOPTIONS * HTTP/1.1\r\nHost: [::1]:80\r\nTransfer-Encoding: gzip, chunked\r\n\r\n'; do
        printf '\x07'"$head" > "$corpus/seed-$n"
        n=$((n + 1))
      done
    fi
    cd "$out"
    exec ./request_head_fuzz -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=1024 \
      -print_final_stats=1 corpus_head
    ;;
  *)
    echo "run_fuzz: unknown target $target (webhook_event, request_head)" >&2
    exit 2
    ;;
esac
