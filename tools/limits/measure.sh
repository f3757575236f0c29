#!/usr/bin/env bash
# Re-measures docs/limits.md: the wall time and peak memory of lsugen gen,
# timing and verify (each engine) on the largest accepted units of each
# family (specs/limits/*.hcl), one run at a time. Not run by make test.
#
#   tools/limits/measure.sh [LSUGEN] [SPEC.hcl...]
#
# LSUGEN defaults to a binary built from this tree. Each run is capped at
# LIMIT_WALL seconds (default 600) and killed once it holds
# more than LIMIT_RSS_KB resident (default 6 GiB), counted over lsugen and
# every process under it. /usr/bin/time's maximum resident set is that of
# the largest single process (lsugen or one tool); for a killed run the
# line gives the largest sum sampled once a second instead. One line per run:
#   spec unit command wall_s max_rss_kb exit_status note
# UNITS (a grep -E pattern) picks units, ENGINES (default "gen timing
# netlist icarus verilator formal") what runs on them.
# An exit status of 2 is a refusal before work (the diagnostic is printed
# below the line); "killed:wall" and "killed:rss" mark runs stopped by a cap.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/lsugen
	(cd "$here" && go build -o "$bin" ./cmd/lsugen) || exit 1
fi
shift || true
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("$here"/specs/limits/*.hcl)
wall=${LIMIT_WALL:-600}
engines=${ENGINES:-gen timing netlist icarus verilator formal}
units=${UNITS:-.}
rsscap=${LIMIT_RSS_KB:-6291456}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# tree PID: the process PID and its descendants (tools run in process
# groups of their own), as "PID..." on one line and their resident KiB
# summed on the next.
tree() {
	ps -eo pid=,ppid=,rss= | awk -v root="$1" '
		{ parent[$1] = $2; rss[$1] = $3 }
		END {
			in_tree[root] = 1
			do {
				grew = 0
				for (p in parent) if (!(p in in_tree) && (parent[p] in in_tree)) { in_tree[p] = 1; grew = 1 }
			} while (grew)
			sum = 0
			for (p in in_tree) if (p in rss) { printf "%s ", p; sum += rss[p] }
			printf "\n%d\n", sum
		}'
}

# measure LABEL CMD...: run CMD under /usr/bin/time -v, killing it and
# every process under it past the caps; print one line.
measure() {
	local label=$1
	shift
	local log=$work/time.log out=$work/out.log note=""
	/usr/bin/time -v -o "$log" "$@" >"$out" 2>&1 &
	local pid=$! start=$SECONDS peak=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		local t pids rss
		t=$(tree "$pid")
		pids=$(sed -n 1p <<<"$t")
		rss=$(sed -n 2p <<<"$t")
		[ "$rss" -le "$peak" ] || peak=$rss
		if [ "$rss" -gt "$rsscap" ]; then
			note="killed:rss(${rss}kB)"
		elif [ $((SECONDS - start)) -ge "$wall" ]; then
			note="killed:wall"
		fi
		if [ -n "$note" ]; then
			# shellcheck disable=SC2086
			kill -KILL $pids 2>/dev/null
			sleep 1
			# shellcheck disable=SC2086
			kill -KILL $(tree "$pid" | sed -n 1p) 2>/dev/null
			break
		fi
	done
	wait "$pid"
	local rc=$?
	local el rss
	el=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
	[ -n "$el" ] || el="$((SECONDS - start))s"
	# A killed run has no /usr/bin/time report: the largest sum sampled.
	[ -n "$note" ] && rss="${peak}(sampled,all processes)"
	printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$el" "${rss:-?}" "$rc" "$note"
	if [ "$rc" = 2 ] || { [ "$rc" != 0 ] && [ -z "$note" ]; }; then
		grep -m3 -E 'lsugen|error|refused|budget|limit' "$out" | cut -c1-300 | sed 's/^/    /'
	fi
}

for spec in "${specs[@]}"; do
	base=$(basename "$spec" .hcl)
	if [[ " $engines " == *" gen "* ]]; then
		measure "$base * gen" "$bin" gen -o "$work/gen-$base" "$spec"
		rm -rf "$work/gen-$base"
	fi
	if [[ " $engines " == *" timing "* ]]; then
		measure "$base * timing" "$bin" timing "$spec"
	fi
	for unit in $(grep -oE '^[a-z_]+ "[a-z0-9_]+"' "$spec" | awk -F'"' '{print $2}' | grep -E "$units"); do
		for e in $engines; do
			case $e in
			netlist | icarus | verilator)
				measure "$base $unit verify --sim $e" "$bin" verify --jobs 1 --unit "$unit" --sim "$e" "$spec" ;;
			formal)
				measure "$base $unit verify --formal" "$bin" verify --jobs 1 --unit "$unit" --formal "$spec" ;;
			esac
		done
	done
done
