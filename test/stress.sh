#!/usr/bin/env bash
# npm run test:stress [-- RUNS]: the CI run on a busy machine. Clones what is committed (HEAD) into a
# temporary folder and runs `bash .ci/run` there RUNS times (default 3) while `stress-ng --cpu 2`
# keeps both cores busy beside it, then prints one line per run and the tally. A run's line names the
# deadline factor it took as it started, under stress-ng (test/support/deadlines.ts).
# STRESS_CPUS=5 npm run test:stress stands in for a machine about 1.7× slower under `stress-ng --cpu 2`
# (the tests get 2/7 of the cores instead of 2/4); the calibration is printed quiet and under the load.
set -uo pipefail
runs=${1:-3}
top=$(git rev-parse --show-toplevel)
if ! command -v stress-ng >/dev/null 2>&1; then
  echo "installing stress-ng with apt"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends stress-ng >/dev/null
fi
work=$(mktemp -d)
git clone -q "$top" "$work/clone"
# The shared contract and references sit beside the repository, as CI has them.
[ -d "$top/../shared" ] && ln -s "$(cd "$top/../shared" && pwd)" "$work/shared"
# The machine's own speed first, on a quiet machine (before stress-ng): the runs' times follow it.
node "$top/test/calibrate.mjs"
cpus=${STRESS_CPUS:-2}
stress-ng --cpu "$cpus" --timeout 0 >/dev/null 2>&1 &
stress=$!
trap 'kill $stress 2>/dev/null; wait $stress 2>/dev/null' EXIT
sleep 1
printf 'under stress-ng: '; node "$top/test/calibrate.mjs"
echo "stress-ng --cpu $cpus (pid $stress) beside ${runs} run(s) of .ci/run on $(git -C "$top" rev-parse --short HEAD), $(nproc) cores"
passed=0
for run in $(seq 1 "$runs"); do
  log="$work/run-$run.log"
  start=$(date +%s)
  (cd "$work/clone" && CI=true bash .ci/run) >"$log" 2>&1 </dev/null
  code=$?
  took=$(( $(date +%s) - start ))
  [ $code -eq 0 ] && passed=$((passed + 1))
  tally=$(grep -E '^tests: ' "$log" | tail -1)
  vitest=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^\s+Duration' | tail -1 | sed -E 's/^\s+Duration\s+([0-9.]+s).*/\1/')
  echo "run $run: exit $code in ${took}s (vitest ${vitest:-?}); ${tally:-no tally}; log $log"
  [ $code -ne 0 ] && sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -A1 -E '^ FAIL ' | grep -v '^--$' | cut -c1-240 | head -12 | sed 's/^/    /'
done
echo "${passed} of ${runs} runs passed under stress"
[ "$passed" -eq "$runs" ]
