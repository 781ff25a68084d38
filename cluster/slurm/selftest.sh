#!/bin/bash
# A real Slurm on this machine, started by hand, running the shipped job files:
#  1. installs slurm-wlm and munge from Debian's packages (skips with a message where apt-get is
#     unavailable), starts munged, slurmctld and slurmd without systemd (one node,
#     proctrack/linuxproc, task/none, no accounting, the node's CPUs from `slurmd -C`);
#  2. plays a small deterministic gauntlet unsharded, then as a 4-task array with shards.sbatch,
#     requeueing one task while it runs (as Slurm does when a node dies), merges with
#     merge.sbatch and checks that `harness stats` of the merge has the same tables (the
#     engines' timing block aside); then requeues a finished task and merges again into the same
#     folder: the second merge replaces the first and nothing is written beside the folder;
#  3. runs a 160-iteration tune sharded over a 4-task array (submit.sh --tune, one task
#     requeued while it runs) with its aggregator beside it: every iteration applied once, in
#     order, some around an aggregated theta; the merge after the array sees all 320 games;
#     then a tune whose task 3 never runs: the merge's stop file ends the aggregator (exit 3);
#  4. runs an SPRT through submit.sh --sprt: the watcher decides, writes the stop file and
#     cancels the pending array tasks; prints the time from the decision to the last shard's end;
#  5. chaos over shards: a depth-limited (deterministic) gauntlet as an 8-task array, whose
#     running tasks are hit at random (SIGKILL of the task's harness then `scontrol requeue`, or
#     a plain requeue) until 12 hits have landed on a running task (fails under 10); after the
#     merge, `harness stats` equals the unsharded run's (timings aside), every game has the
#     unsharded game's moves, and no game is missing or found twice, in the merge or in a
#     shard's journal; prints the hits that landed and the "resuming:" lines of the shard logs;
#  6. stops every daemon it started (also on failure).
# Usage: cluster/slurm/selftest.sh   (from the repository root; builds the harness if needed)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

if ! command -v sbatch >/dev/null || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  if ! command -v apt-get >/dev/null; then
    # Under CI a skipped selftest would pass without testing anything: it fails there.
    if [ -n "${CI:-}" ]; then
      echo "slurm selftest: FAILED: apt-get is not available to install slurm-wlm and munge, and CI is set" >&2
      exit 1
    fi
    echo "slurm selftest: SKIPPED: apt-get is not available to install slurm-wlm and munge"
    exit 0
  fi
  echo "slurm selftest: installing slurm-wlm and munge"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

cargo build --release -q -p harness -p minimax -p greedy -p heuristic
harness="$repo/target/release/harness"

work=$(mktemp -d /tmp/arena-slurm.XXXXXX)
pids=()
cleanup() {
  set +e
  scancel --user=root >/dev/null 2>&1
  # The jobs' steps end before the daemons do, or a running step outlives them.
  for _ in $(seq 20); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 1
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  pkill -f "$work" 2>/dev/null
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# --- 1. munge and Slurm, by hand ------------------------------------------------------------
mkdir -p "$work"/{munge,state,spool,log,run}
chmod 755 "$work"
chown munge: "$work/munge"
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
  chown munge: /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
fi
mkdir -p /run/munge && chown munge: /run/munge
runuser -u munge -- munged --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
  --socket=/run/munge/munge.socket.2 --force
sleep 0.5
pids+=("$(cat "$work/munge/munged.pid")")

host=$(hostname -s)
node=$(slurmd -C | head -1 | sed 's/ UpTime=.*//')
cpus=$(echo "$node" | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p')
# The node says how many CPUs it has; declared with 8 (config_overrides) so that the watcher
# and the merge get a CPU while the shards run.
node=$(echo "$node" | sed "s/CPUs=$cpus/CPUs=8/; s/CoresPerSocket=[0-9]*/CoresPerSocket=8/; s/ThreadsPerCore=[0-9]*/ThreadsPerCore=1/; s/Boards=[0-9]* //; s/SocketsPerBoard=[0-9]*/Sockets=1/")
cat > "$work/slurm.conf" <<EOF
ClusterName=arena-selftest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
MpiDefault=none
$node State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o "%N %T %c" | grep -q idle || { echo "slurm did not come up"; tail -20 "$work"/log/*; exit 1; }
echo "slurm selftest: slurmctld and slurmd up ($(sinfo -h -o '%N %c CPUs'))"

# Each task of array job $1 as TASK:STATE:EXIT (the controller keeps ended jobs MinJobAge s).
array_tasks() {
  scontrol -o show job "$1" 2>/dev/null |
    sed -n 's/.* ArrayTaskId=\([0-9]*\) .* JobState=\([A-Z_]*\) .* ExitCode=\([0-9:]*\) .*/\1:\2:\3/p' |
    sort -n | tr '\n' ' '
}

# What the jobs said and what the harness processes are doing: printed when a step fails.
diagnose() {
  echo "slurm selftest: jobs still queued:"; squeue
  for log in arena-*.log; do
    [ -f "$log" ] && { echo "--- $log (last 12 lines)"; tail -n 12 "$log"; }
  done
  echo "--- harness processes:"
  ps -eo pid,ppid,stat,etime,wchan:24,args | grep '[h]arness ' || true
}

# Wait until no job of ours is left in the queue (pending, running or completing), at most $1
# seconds (900 by default); on a timeout, say why.
wait_queue_empty() {
  for _ in $(seq "${1:-900}"); do
    [ -z "$(squeue -h -o %i)" ] && return 0
    sleep 1
  done
  diagnose; return 1
}

# A depth-limited gauntlet (minimax Depth 6, greedy, heuristic Depth 4; the move time never
# binds, so every game is the same in any run): gauntlet_file NAME PAIRS MOVE_TIME SEED writes
# NAME.toml with output folder out/NAME.
gauntlet_file() {
  cat > "$1.toml" <<EOF
[tournament]
format = "gauntlet"
pairs = $2
concurrency = 1
out = "out/$1"

[time]
move-time = $3

[openings]
builtin = "xot-small"
order = "shuffled"
seed = $4

[[engine]]
name = "minimax"
plugin = "minimax"
options = { Depth = 6, Pruning = "none" }

[[engine]]
name = "greedy"
plugin = "greedy"

[[engine]]
name = "heuristic"
plugin = "heuristic"
options = { Depth = 4 }
EOF
}

# --- 2. sharded = unsharded -----------------------------------------------------------------
cd "$work"
gauntlet_file gauntlet 16 5.0 21
"$harness" run gauntlet.toml --no-tui --out unsharded >unsharded.log
export HARNESS="$harness" TOURNAMENT=gauntlet.toml OUT="$work/out/gauntlet" STOP_FILE="$work/out/gauntlet/stop"
shards=$(sbatch --parsable --export=ALL --array=0-3 --cpus-per-task=1 "$repo/cluster/slurm/shards.sbatch")
merge=$(sbatch --parsable --export=ALL --dependency=afterany:"$shards" "$repo/cluster/slurm/merge.sbatch")
echo "slurm selftest: array $shards (4 shards), merge $merge"
# Requeue task 1 while it runs, as Slurm does when its node dies: the rerun resumes.
journal="$OUT/shard-1-of-4/games.jsonl"
for _ in $(seq 3000); do
  [ -f "$journal" ] && [ "$(wc -l <"$journal")" -ge 2 ] && break
  sleep 0.05
done
before=$(wc -l <"$journal")
scontrol requeue "${shards}_1"
# A requeued job waits for a begin time about two minutes away; let it go at once.
sleep 1
scontrol update JobId="${shards}_1" StartTime=now || true
echo "slurm selftest: requeued task 1 while it ran, with $before of 16 games in its journal"
wait_queue_empty
grep -h "resuming:" arena-shard-"${shards}"_1.log || { echo "task 1 did not resume"; cat arena-shard-"${shards}"_1.log; exit 1; }
grep -q "resuming: 16 of 16" arena-shard-"${shards}"_1.log && { echo "FAILED: task 1 had finished before the requeue"; exit 1; }
cat arena-merge-"$merge".log | head -3
# The engines' timing block (ms per move, nodes/s) is left out: the same games do not take the
# same wall time twice; every result and statistic must match byte for byte.
"$harness" stats unsharded | sed '/^Engines (/,/^$/d' >stats-unsharded.txt
"$harness" stats "$OUT" | sed '/^Engines (/,/^$/d' >stats-merged.txt
if cmp -s stats-unsharded.txt stats-merged.txt; then
  echo "slurm selftest: the merge of 4 shards (one requeued) has the unsharded run's statistics, byte for byte (timings aside)"
else
  echo "slurm selftest: FAILED: statistics differ"; diff stats-unsharded.txt stats-merged.txt; exit 1
fi
# A requeued task after the merge (a node lost late), then the documented re-merge into the
# same folder: the merge must still see 4 shards, not take its own output for one run folder.
scontrol requeue "${shards}_2"
sleep 1
scontrol update JobId="${shards}_2" StartTime=now || true
remerge=$(sbatch --parsable --export=ALL --dependency=afterany:"$shards" "$repo/cluster/slurm/merge.sbatch")
wait_queue_empty
grep -q "merged 4 folders into $OUT/games.jsonl: 64 games of 64 planned" arena-merge-"$remerge".log \
  || { echo "slurm selftest: FAILED: the re-merge"; cat arena-merge-"$remerge".log; exit 1; }
beside=$(ls -A "$work/out")
[ "$beside" = "gauntlet" ] || { echo "slurm selftest: FAILED: the merge wrote beside its folder: $beside"; exit 1; }
"$harness" stats "$OUT" | sed '/^Engines (/,/^$/d' >stats-remerged.txt
cmp -s stats-unsharded.txt stats-remerged.txt || { echo "slurm selftest: FAILED: the re-merge's statistics differ"; exit 1; }
echo "slurm selftest: task 2 requeued after the merge, merged again into $OUT: 4 shards, nothing beside it"

# --- 3. a sharded tune ----------------------------------------------------------------------
# tune.sbatch as a 4-task array with tune-aggregate.sbatch beside it (submit.sh --tune), one
# task requeued while it runs: every iteration is applied once, in order, the shards played
# around the aggregator's theta, and the merge after the array sees every game.
cat > tune.toml <<EOF
[tournament]
format = "match"
concurrency = 1
out = "out/tune"

[time]
nodes = 100000000

[openings]
builtin = "xot-small"

[[engine]]
name = "mm"
plugin = "minimax"
options = { Pruning = "alphabeta" }

[tune]
engine = "mm"
iterations = 160
seed = 11

[tune.params]
Depth = { start = 5, min = 3, max = 7, c-end = 1.0, r-end = 0.1 }
EOF
export TOURNAMENT=tune.toml OUT="$work/out/tune" STOP_FILE="$work/out/tune/stop" INTERVAL=0.2
"$repo/cluster/slurm/submit.sh" --tune --array=0-3 --cpus-per-task=1 | tee submit-tune.log
shards=$(sed -n 's/^shards: job //p' submit-tune.log)
aggregator=$(sed -n 's/^aggregator: job //p' submit-tune.log)
merge=$(sed -n 's/^merge: job \([0-9]*\).*/\1/p' submit-tune.log)
journal="$OUT/shard-1-of-4/games.jsonl"
for _ in $(seq 3000); do
  [ -f "$journal" ] && [ "$(wc -l <"$journal")" -ge 4 ] && break
  sleep 0.05
done
[ -f "$journal" ] || { echo "slurm selftest: FAILED: tune task 1 wrote no journal"; exit 1; }
before=$(wc -l <"$journal")
scontrol requeue "${shards}_1"
# Released at once, but not within the second the task ended (Slurm then refuses the start).
sleep 3
scontrol update JobId="${shards}_1" StartTime=now || true
[ "$before" -lt 80 ] || { echo "slurm selftest: FAILED: tune task 1 had finished before the requeue"; exit 1; }
echo "slurm selftest: tune task 1 requeued while it ran, with $before of 80 games in its journal"
# Seconds when all is well; a shard that ends with iterations unplayed ends the aggregator
# through the merge (below), so the wait only runs out when something hangs.
wait_queue_empty 300 || { echo "slurm selftest: FAILED: the sharded tune did not end (tasks: $(array_tasks "$shards"))"; exit 1; }
echo "slurm selftest: tune tasks (task:state:exit code): $(array_tasks "$shards")"
grep -h "resuming:" arena-tune-"${shards}"_1.log || { echo "FAILED: tune task 1 did not resume"; cat arena-tune-"${shards}"_1.log; exit 1; }
grep -q "resuming: 40 iterations" arena-tune-"${shards}"_1.log && { echo "FAILED: tune task 1 had played everything before the requeue"; exit 1; }
tail -4 arena-tune-aggregate-"$aggregator".log
grep -q 'final values of `mm`' arena-tune-aggregate-"$aggregator".log \
  || { echo "slurm selftest: FAILED: the aggregator did not finish"; diagnose; exit 1; }
grep -q "320 games of 320 planned" arena-merge-"$merge".log \
  || { echo "slurm selftest: FAILED: the merge of the tune"; cat arena-merge-"$merge".log; exit 1; }
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
lines = [json.loads(l) for l in open(os.path.join(out, "tune.jsonl"))]
assert [l["iteration"] for l in lines] == list(range(1, 161)), "tune.jsonl: not iterations 1..160 in order"
dispatches = {}
for d in sorted(os.listdir(out)):
    path = os.path.join(out, d, "tune-dispatch.jsonl")
    if os.path.exists(path):
        for line in open(path):
            x = json.loads(line)
            assert x["iteration"] not in dispatches, f"iteration {x['iteration']} begun twice"
            dispatches[x["iteration"]] = x
assert sorted(dispatches) == list(range(1, 161)), "an iteration was never begun"
fresh = sum(1 for x in dispatches.values() if x["k"] > 1)
assert fresh > 0, "no shard played around the aggregator's theta"
theta = json.load(open(os.path.join(out, "tune-theta.json")))
assert theta["applied"] == 160 and theta["theta"] == lines[-1]["theta"]
worst = max(x["iteration"] - x["k"] for x in dispatches.values())
print(f"slurm selftest: sharded tune: 160 of 160 iterations applied in order, {fresh} dispatched around an aggregated theta, worst staleness {worst}, final {lines[-1]['theta']}")
PY

# A shard that never runs (task 3 cancelled while held): its iterations are never played, and
# the aggregator, which cannot know that, would watch until its time limit. The merge job ends
# it: once every task has ended it writes the aggregator's stop file, and the aggregator makes
# one more look and exits 3 with the iterations applied up to the first one missing.
export OUT="$work/out/tune-lost" STOP_FILE="$work/out/tune-lost/stop"
"$repo/cluster/slurm/submit.sh" --tune --array=0-3 --cpus-per-task=1 --hold | tee submit-lost.log
shards=$(sed -n 's/^shards: job //p' submit-lost.log)
aggregator=$(sed -n 's/^aggregator: job //p' submit-lost.log)
scancel "${shards}_3"
scontrol release "${shards}_[0-2]"
wait_queue_empty 300 || { echo "slurm selftest: FAILED: a tune with a lost shard did not end"; exit 1; }
ended=$(scontrol -o show job "$aggregator" | grep -o ' ExitCode=[0-9:]*')
grep -q "the stop file .*: the aggregator stops with 3 of 160 iterations applied" arena-tune-aggregate-"$aggregator".log \
  && [ "$ended" = " ExitCode=3:0" ] \
  || { echo "slurm selftest: FAILED: the aggregator of a tune with a lost shard (${ended# })"; diagnose; exit 1; }
echo "slurm selftest: tune with task 3 cancelled (tasks: $(array_tasks "$shards")): the merge stopped the aggregator, 3 of 160 iterations applied, exit 3"

# --- 4. the distributed SPRT ----------------------------------------------------------------
cat > sprt.toml <<EOF
[tournament]
format = "match"
pairs = 400
concurrency = 1
out = "out/sprt"

[time]
move-time = 0.05

[openings]
builtin = "xot-small"
order = "shuffled"
seed = 8

[sprt]
elo0 = 0
elo1 = 50

[[engine]]
name = "candidate"
plugin = "greedy"

[[engine]]
name = "baseline"
plugin = "heuristic"
EOF
export TOURNAMENT=sprt.toml OUT="$work/out/sprt" STOP_FILE="$work/out/sprt/stop" INTERVAL=0.5
"$repo/cluster/slurm/submit.sh" --sprt --array=0-15%2 --cpus-per-task=1 | tee submit.log
shards=$(sed -n 's/^shards: job //p' submit.log)
watcher=$(sed -n 's/^watcher: job //p' submit.log)
merge=$(sed -n 's/^merge: job \([0-9]*\).*/\1/p' submit.log)
wait_queue_empty
started=$(ls -d "$OUT"/shard-* | wc -l)
echo "slurm selftest: watcher log:"; sed 's/^/  /' arena-watch-"$watcher".log | tail -4
# The shards that ran: their exit codes and when they ended, against the decision's time.
for i in $(seq 0 15); do scontrol -o show job "${shards}_$i" 2>/dev/null; done >tasks.txt || true
python3 - "$OUT/decision.json" tasks.txt <<'PY'
import json, re, sys, datetime
decided = json.load(open(sys.argv[1]))["decided_at_unix"]
ends, codes = [], []
field = lambda name, line: (re.search(name + r"=(\S+)", line) or re.search("()", "")).group(1)
for line in sorted(set(open(sys.argv[2]))):
    task, state = field("ArrayTaskId", line), field("JobState", line)
    code, end = field(" ExitCode", line), field("EndTime", line)
    if not task:  # a task cancelled while pending has no record of its own
        continue
    codes.append(f"{task}:{state}:{code}")
    if state not in ("CANCELLED", "PENDING", "") and end not in ("Unknown", ""):
        ends.append(datetime.datetime.fromisoformat(end).timestamp())
print("slurm selftest: array tasks (task:state:exit code):", " ".join(codes))
if ends:
    print(f"slurm selftest: the last shard ended {max(ends) - decided:.1f} s after the decision")
PY
echo "slurm selftest: $started of 16 shards started; the others were cancelled while pending"
grep -q '"decision": "accept_h0"' "$OUT/decision.json" || { echo "FAILED: no H0 decision"; cat "$OUT/decision.json"; exit 1; }
[ "$started" -lt 16 ] || { echo "FAILED: every shard ran: nothing was cancelled"; exit 1; }
tail -3 arena-merge-"$merge".log

# --- 5. chaos over shards -------------------------------------------------------------------
# Depth-limited searches (the move time never binds), so every game is the same in any run.
chaos_started=$SECONDS
gauntlet_file chaos 40 30.0 35
planned=160
"$harness" run chaos.toml --no-tui --out chaos-unsharded >chaos-unsharded.log
export HARNESS="$harness" TOURNAMENT=chaos.toml OUT="$work/out/chaos" STOP_FILE="$work/out/chaos/stop"
shards=$(sbatch --parsable --export=ALL --array=0-7 --cpus-per-task=1 "$repo/cluster/slurm/shards.sbatch")
echo "slurm selftest: chaos: array $shards, 8 shards of $planned games (the unsharded run took $((SECONDS - chaos_started)) s)"
# A field of one array task (`scontrol -o show job`), e.g. JobState or Restarts.
task_field() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# Requeued tasks wait for a begin time about two minutes away: release every pending one, but
# not within 3 s of its hit. slurmd revokes the credential of the attempt it ended, and a new
# attempt whose credential dates from the same second is refused ("Killing non-startable batch
# job: Job credential revoked"): the task then fails with exit code 1 before the harness runs.
declare -A hit_at=()
release_pending() {
  local id
  for id in $(squeue -h -r -t PD -o %i -j "$shards" 2>/dev/null); do
    [ $((SECONDS - ${hit_at[$id]:-0})) -ge 3 ] || continue
    scontrol update JobId="$id" StartTime=now >/dev/null 2>&1 || true
  done
}
# The harness process of the running array task $1 (JOB_TASK), known by its environment.
task_pid() {
  local pid env
  for pid in $(pgrep -f -- " run chaos.toml --no-tui"); do
    env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null) || continue
    if grep -qx "SLURM_ARRAY_JOB_ID=${1%_*}" <<<"$env" && grep -qx "SLURM_ARRAY_TASK_ID=${1#*_}" <<<"$env"; then
      echo "$pid"
      return 0
    fi
  done
  return 1
}
# Hit the running task $1 with $2: `kill` sends SIGKILL to its harness (as a crash or the OOM
# killer would: no SIGTERM first, a journal line may be torn), then requeues the failed task;
# `requeue` requeues it while it runs (Slurm's SIGTERM, as when a node is taken away). Not
# `scancel --signal=KILL`: Slurm takes that for a cancel, sends SIGTERM first and marks the
# task CANCELLED. Succeeds when the hit landed: the task was running, a kill ended it by
# signal 9, and the requeue counted a restart.
hit() {
  local id=$1 kind=$2 restarts state pid
  [ "$(task_field "$id" JobState)" = RUNNING ] || return 1
  restarts=$(task_field "$id" Restarts)
  if [ "$kind" = kill ]; then
    pid=$(task_pid "$id") || return 1
    kill -KILL "$pid" 2>/dev/null || return 1
    for _ in $(seq 100); do
      state=$(task_field "$id" JobState)
      case $state in RUNNING | COMPLETING) sleep 0.1 ;; *) break ;; esac
    done
    # Ended some other way first (finished, or failed by itself): not a landed hit, but a
    # failed task goes back in the queue all the same.
    [ "$state" = FAILED ] || return 1
    if [ "$(task_field "$id" ExitCode)" != 0:9 ]; then
      scontrol requeue "$id" 2>/dev/null
      return 1
    fi
  fi
  scontrol requeue "$id" 2>/dev/null || return 1
  [ "$(task_field "$id" Restarts)" -gt "$restarts" ]
}
landed=0 kills=0 requeues=0 missed=0
while [ "$landed" -lt 12 ] && [ -n "$(squeue -h -j "$shards" 2>/dev/null)" ]; do
  sleep "$((RANDOM % 2)).$((RANDOM % 10))"
  release_pending
  mapfile -t running < <(squeue -h -r -t R -o %i -j "$shards" 2>/dev/null)
  [ "${#running[@]}" -gt 0 ] || continue
  id=${running[RANDOM % ${#running[@]}]}
  kind=requeue
  [ $((RANDOM % 2)) = 0 ] && kind=kill
  hit_at[$id]=$SECONDS
  if hit "$id" "$kind"; then
    landed=$((landed + 1))
    if [ "$kind" = kill ]; then kills=$((kills + 1)); else requeues=$((requeues + 1)); fi
    echo "slurm selftest: chaos: hit $landed at $((SECONDS - chaos_started)) s: $kind of task $id"
  else
    missed=$((missed + 1))
  fi
done
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$shards" 2>/dev/null)" ] && break
  release_pending
  sleep 1
done
wait_queue_empty
resumes=$(cat arena-shard-"$shards"_*.log | grep -c "resuming:" || true)
echo "slurm selftest: chaos: $landed hits landed on running tasks ($kills SIGKILL then requeue, $requeues requeue; $missed attempts found the task no longer running); $resumes \"resuming:\" lines in the shard logs"
[ "$landed" -ge 10 ] || { echo "slurm selftest: FAILED: only $landed hits landed (10 needed)"; exit 1; }
merge=$(sbatch --parsable --export=ALL "$repo/cluster/slurm/merge.sbatch")
wait_queue_empty
head -1 arena-merge-"$merge".log
if ! grep -q "merged 8 folders into $OUT/games.jsonl: $planned games of $planned planned (0 found twice" arena-merge-"$merge".log; then
  echo "slurm selftest: FAILED: the chaos merge"; head -4 arena-merge-"$merge".log
  for i in $(seq 0 7); do
    echo "--- task ${shards}_$i: $(scontrol -o show job "${shards}_$i" | grep -o 'JobState=[^ ]* Reason=[^ ]*\|Restarts=[^ ]*\|ExitCode=[^ ]*' | tr '\n' ' ')"
    grep -v "^game \|^pair " arena-shard-"${shards}_$i".log | grep -v "^ *$" | tail -8
  done
  exit 1
fi
"$harness" stats chaos-unsharded | sed '/^Engines (/,/^$/d' >chaos-stats-unsharded.txt
"$harness" stats "$OUT" | sed '/^Engines (/,/^$/d' >chaos-stats-merged.txt
cmp -s chaos-stats-unsharded.txt chaos-stats-merged.txt \
  || { echo "slurm selftest: FAILED: chaos statistics differ"; diff chaos-stats-unsharded.txt chaos-stats-merged.txt; exit 1; }
# Every planned game once in the merge, with the unsharded game's moves, and no game twice in
# any shard's journal (the merge keeps one of two copies: that would hide a game played twice).
python3 - "$planned" chaos-unsharded/games.jsonl "$OUT/games.jsonl" "$OUT"/shard-*-of-8/games.jsonl <<'PY'
import collections, json, sys
planned, unsharded, merged, shards = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
def games(path):
    return [json.loads(line) for line in open(path)]
def moves(game):
    return [m["move"] for m in game["moves"]]
reference = {g["game"]: moves(g) for g in games(unsharded)}
assert sorted(reference) == list(range(planned)), f"the unsharded run has {len(reference)} games"
errors = []
for path in [merged] + shards:
    twice = [n for n, c in collections.Counter(g["game"] for g in games(path)).items() if c > 1]
    if twice:
        errors.append(f"{path}: games found twice: {sorted(twice)}")
got = {g["game"]: moves(g) for g in games(merged)}
missing = sorted(set(range(planned)) - set(got))
if missing:
    errors.append(f"{merged}: games missing: {missing}")
differ = sorted(n for n in got if got[n] != reference.get(n))
if differ:
    errors.append(f"{merged}: games whose moves differ from the unsharded run's: {differ}")
if errors:
    sys.exit("slurm selftest: FAILED: " + "; ".join(errors))
print(f"slurm selftest: chaos: {len(got)} of {planned} games merged, each once and with the"
      f" unsharded run's moves; no game twice in any of {len(shards)} shard journals")
PY
echo "slurm selftest: chaos: passed in $((SECONDS - chaos_started)) s: the merge of 8 shards hit $landed times has the unsharded run's statistics, byte for byte (timings aside)"
echo "slurm selftest: passed in $SECONDS s"
