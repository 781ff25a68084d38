#!/usr/bin/env bash
# The thread-scaling figures of the strong engine's exact solver (engines/strong/README.md,
# "Threads"), in two steps, because a large machine is often lent for a few minutes and may
# have no Rust toolchain:
#
#   engines/strong/scripts/threads-sweep.sh pack DIR     # here: build, strip, copy into DIR
#   DIR/threads-sweep.sh run [THREADS]                   # there: run the sweep, print figures
#
# `pack` needs ../shared/data/ffo beside the project (the FFO #40-#59 file). `run` sweeps
# FFO #40-#49 over THREADS (default 1,2,4,8,16, or up to the machine's cores), each position
# with each count in turn, with the counters, then FFO #40-#59 on the largest count within
# LIMIT seconds (default 150, the issue's goal). Output: DIR/out/*.txt, and on stdout.
set -euo pipefail

pack() {
    local dir=$1
    local root
    root=$(cd "$(dirname "$0")/../../.." && pwd)
    local ffo="$root/../shared/data/ffo/fforum-40-59.obf"
    [[ -f $ffo ]] || { echo "threads-sweep: $ffo is missing" >&2; exit 2; }
    (cd "$root" && cargo build --release -p strong)
    mkdir -p "$dir"
    cp "$root/target/release/strong-bench" "$dir/"
    strip "$dir/strong-bench"
    cp "$ffo" "$dir/fforum-40-59.obf"
    head -10 "$ffo" > "$dir/fforum-40-49.obf"
    cp "$0" "$dir/threads-sweep.sh"
    (cd "$root" && git rev-parse --short HEAD) > "$dir/commit"
    echo "packed into $dir ($(du -sh "$dir" | cut -f1)); run: $dir/threads-sweep.sh run"
}

run() {
    local here
    here=$(cd "$(dirname "$0")" && pwd)
    local cores
    cores=$(nproc)
    local threads=${1:-}
    if [[ -z $threads ]]; then
        threads=1
        for t in 2 4 8 16 32 64; do
            ((t <= cores)) && threads="$threads,$t"
        done
    fi
    local most=${threads##*,}
    mkdir -p "$here/out"
    {
        echo "commit $(cat "$here/commit" 2>/dev/null || echo unknown); $(nproc) cores;" \
            "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
        "$here/strong-bench" --hash 64 solve "$here/fforum-40-49.obf" --threads "$threads" --counters
    } 2>&1 | tee "$here/out/sweep-40-49.txt"
    local limit=${LIMIT:-150}
    timeout "$limit" "$here/strong-bench" --hash 64 solve "$here/fforum-40-59.obf" --threads "$most" \
        --counters 2>&1 | tee "$here/out/40-59-t$most.txt" || echo "FFO #40-#59 on $most threads: not done in $limit s"
}

case ${1:-} in
    pack) pack "${2:?pack DIR}" ;;
    run) run "${2:-}" ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
esac
