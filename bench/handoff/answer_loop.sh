#!/bin/sh
# Hand-off episodes from the side that can reach a model (docs/agent.md,
# "Hand-off episodes"). A run of `kgate optimize --agent handoff` (or sweep)
# that stops at a model turn exits 4; each waiting episode's record names the
# request file it waits for, and its answer goes beside it.
#
#   answer_loop.sh STATE
#       the request file each waiting episode under STATE waits for, one per
#       line (nothing when none waits)
#   answer_loop.sh --with-answer STATE
#       the same, each followed by a tab and the file its answer goes to
#   answer_loop.sh --loop STATE MODEL_CMD -- KGATE_COMMAND...
#       runs KGATE_COMMAND (a kgate optimize or sweep with --agent handoff
#       and --state-dir STATE); while it exits 4, answers every waiting
#       request with MODEL_CMD (run by sh -c: the request JSON on stdin, the
#       answer text on stdout; a failure stops the loop) and runs it again.
#       Ends with KGATE_COMMAND's last exit code.
#
# STATE is the state folder (the repository's .kgate, or --state-dir), here
# or unpacked from the artifact of the GPU runner's job.
set -u

pending() {  # $1: state folder; $2: 1 to add the answer's path
  python3 - "$1" "$2" <<'PY'
import json, os, sys
state, with_answer = sys.argv[1], sys.argv[2] == "1"
episodes = os.path.join(state, "episodes")
for name in sorted(os.listdir(episodes)) if os.path.isdir(episodes) else []:
    record = os.path.join(episodes, name, "episode.json")
    try:
        with open(record) as f:
            r = json.load(f)
    except (OSError, ValueError):
        continue
    w = r.get("waiting") if isinstance(r, dict) else None
    if r.get("status") != "waiting" or not isinstance(w, dict) or not w.get("request"):
        continue
    line = os.path.join(episodes, name, w["request"])
    if with_answer:
        line += "\t" + os.path.join(episodes, name, w.get("answer", ""))
    print(line)
PY
}

usage() {
  sed -n '2,22p' "$0" >&2
  exit 2
}

case "${1:-}" in
  --with-answer)
    [ $# -eq 2 ] || usage
    pending "$2" 1 ;;
  --loop)
    [ $# -ge 5 ] && [ "$4" = "--" ] || usage
    state=$2 model=$3
    shift 4
    list=$(mktemp) part=$(mktemp)
    trap 'rm -f "$list" "$part"' EXIT
    while :; do
      "$@"
      rc=$?
      [ "$rc" -eq 4 ] || exit "$rc"
      pending "$state" 1 > "$list" || exit 3
      [ -s "$list" ] || { echo "exit code 4, but no episode under $state waits" >&2; exit 3; }
      while IFS="$(printf '\t')" read -r request answer; do
        echo "answering $request" >&2
        # Written elsewhere first: a half-written answer is never taken.
        sh -c "$model" < "$request" > "$part" || { echo "the model command failed on $request" >&2; exit 3; }
        cp "$part" "$answer"
      done < "$list"
    done ;;
  ""|-*) usage ;;
  *)
    [ $# -eq 1 ] || usage
    pending "$1" 0 ;;
esac
