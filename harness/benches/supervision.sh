#!/usr/bin/env bash
# What the worker's supervisor and namespaces cost, two builds side by side: the folders $1
# (before) and $2 (after) each hold a `harness` and its plugins (`target/release` of each
# build). Usage: harness/benches/supervision.sh BEFORE AFTER [ROUNDS]. Prints figures; not a
# test.
# start-up+teardown: `harness info greedy --sandbox MODE`, alternating, median of N; then the
# two apart, under strace (below).
# memory: a concurrency-64 depth-2 match; the peak of the summed PSS of the run's processes
# other than the coordinator (workers, supervisors, inits), sampled every 50 ms.
set -euo pipefail
before=$1 after=$2 n=${3:-30}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for mode in strict off; do
  for which in before after; do : > /tmp/sv-$which-$mode; done
  for i in $(seq $n); do
    for which in before after; do
      bin=${!which}
      s=$(date +%s%N); $bin/harness info greedy --sandbox $mode >/dev/null; e=$(date +%s%N)
      echo $(( (e - s) / 1000 )) >> /tmp/sv-$which-$mode
    done
  done
  for which in before after; do
    echo "start-up+teardown $mode $which: $(median < /tmp/sv-$which-$mode) us (median of $n)"
  done
done
# start-up chain and teardown apart, from `strace -f -ttt` of `harness info greedy` (strace
# slows every traced call alike in both builds: compare, do not read as absolute): the chain is
# the time from the coordinator's first child's exec to the worker's exec (supervisor, init,
# namespaces and mounts; 0 where the worker is the first child); the teardown, from the
# worker's exit to the later of the coordinator's reaping of its child and the last cgroup
# folder removed.
phases() {
  local bin=$1 mode=$2 trace=/tmp/sv-trace-$$
  strace -f -ttt --seccomp-bpf -e trace=execve,exit_group,wait4,waitid,rmdir -o $trace \
    $bin/harness info greedy --sandbox $mode >/dev/null 2>&1
  awk '
    NR == 1 { coordinator = $1 }
    /execve\(/ && $1 != coordinator && first == "" { first = $2; child = $1 }
    /execve\(/ && / "worker",/ && worker == "" { worker = $1; exec = $2 }
    $1 == worker && /exit_group\(/ { exited = $2 }
    $1 == coordinator && /wait4|waitid/ && index($0, "= " child) { reaped = $2 }
    /rmdir\(/ && / = 0$/ && exited != "" { removed = $2 }
    END {
      end = (removed > reaped) ? removed : reaped
      printf "%d %d\n", (exec - first) * 1e6, (end - exited) * 1e6
    }' $trace
  rm -f $trace
}
for mode in strict off; do
  for which in before after; do : > /tmp/sv-chain-$which-$mode; : > /tmp/sv-down-$which-$mode; done
  for i in $(seq $n); do
    for which in before after; do
      read chain down < <(phases ${!which} $mode)
      echo $chain >> /tmp/sv-chain-$which-$mode; echo $down >> /tmp/sv-down-$which-$mode
    done
  done
  for which in before after; do
    echo "under strace, $mode $which: start-up chain $(median < /tmp/sv-chain-$which-$mode) us, teardown $(median < /tmp/sv-down-$which-$mode) us (median of $n)"
  done
done
pss_of_run() {
  local bin=$1 mode=$2 out=/tmp/sv-run-$$
  rm -rf $out
  $bin/harness run --engine name=a,plugin=$bin/libminimax.so --engine name=b,plugin=$bin/libgreedy.so \
     --format match --time depth=2 --pairs 400 --concurrency 64 --no-tui --sandbox $mode --out $out >/dev/null 2>&1 &
  local pid=$! peak=0 procs=0
  while kill -0 $pid 2>/dev/null; do
    local sum=0 count=0
    for d in /proc/[0-9]*; do
      c=$(cat $d/cmdline 2>/dev/null | tr '\0' ' ')
      case "$c" in *"--coordinator $pid "*)
        k=$(awk '/^Pss:/ {print $2}' $d/smaps_rollup 2>/dev/null || echo 0)
        sum=$((sum + ${k:-0})); count=$((count + 1));;
      esac
    done
    if [ $sum -gt $peak ]; then peak=$sum; procs=$count; fi
    sleep 0.05
  done
  echo "$peak $procs"
}
for mode in strict off; do
  for which in before after; do
    read kb procs < <(pss_of_run ${!which} $mode)
    echo "memory $mode $which: peak PSS $((kb / 1024)) MiB over $procs processes (128 workers)"
  done
done
