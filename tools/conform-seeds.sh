#!/usr/bin/env bash
# conform-seeds: the whole conformance suite against the clean mock with many
# seeds, as make conform-seeds runs it (docs/conformance-selftest.md):
#   static   harness serve as it starts (no flags), seeds 1..SEEDS
#   growing  harness serve --block-interval 20ms, seeds 1..SEEDS
#   scale    harness serve --scale SCALE, seed 1, with conform's peak memory
#   replicas two harness serve --block-interval 20ms sharing --genesis-time,
#            behind nginx (Debian package nginx-light or nginx) balancing
#            round robin, seeds 1..3
# Each run must pass (exit 0); the script prints one line a run (verdict,
# rules, requests, wall time) and exits 1 when any run did not pass.
# Usage: tools/conform-seeds.sh BIN [SEEDS] [SCALE]
# CONFORM_SEEDS_MODES picks the runs (default: static growing scale
# replicas); CONFORM_SEEDS_REPLICA_SEEDS the replicas' seeds (default 3);
# CONFORM_SEEDS_KEEP, a directory, keeps each run's whole output there.
set -u
modes=" ${CONFORM_SEEDS_MODES:-static growing scale replicas} "
replica_seeds=${CONFORM_SEEDS_REPLICA_SEEDS:-3}
for m in $modes; do
	case $m in static | growing | scale | replicas) ;; *) echo "conform-seeds: unknown mode $m (static, growing, scale, replicas)"; exit 2 ;; esac
done
# run MODE: whether MODE is among the modes picked.
run() { [[ $modes == *" $1 "* ]]; }
bin=${1:?usage: conform-seeds.sh BIN [SEEDS] [SCALE]}
seeds=${2:-10}
scale=${3:-100}
base_port=${CONFORM_SEEDS_PORT:-18300}
time_cmd=/usr/bin/time
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
failed=0

# serve NAME PORT ARGS...: starts harness serve in the background and waits
# (at most 5 minutes: a scale-100 world takes a while) until it answers.
serve() {
	local name=$1 port=$2
	shift 2
	"$bin" serve --addr "127.0.0.1:$port" --log-format none "$@" >"$work/$name.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 1 600); do
		curl -sf "http://127.0.0.1:$port/api/v2/network/parameters?pagination.first=1" >/dev/null && return 0
		sleep 0.5
	done
	echo "$name: harness serve did not answer on port $port"; cat "$work/$name.log"
	return 1
}

# stop: stops every server started so far.
stop() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	pids=()
}

# conform NAME URL SEED [ARGS...]: one run, one line.
conform() {
	local name=$1 url=$2 seed=$3
	shift 3
	local out="$work/conform-$name-$seed.txt" rc
	[ -n "${CONFORM_SEEDS_KEEP:-}" ] && out="$CONFORM_SEEDS_KEEP/conform-$name-$seed.txt"
	if [ -x "$time_cmd" ]; then
		"$time_cmd" -f "%e %M" -o "$work/time" "$bin" conform --base-url "$url" --seed "$seed" "$@" >"$out" 2>&1
		rc=$?
	else
		local start=$(date +%s%N)
		"$bin" conform --base-url "$url" --seed "$seed" "$@" >"$out" 2>&1
		rc=$?
		echo "$(( ($(date +%s%N) - start) / 1000000 ))e-3 -" >"$work/time"
	fi
	read -r wall peak < <(tail -1 "$work/time") # GNU time puts "Command exited..." first
	local verdict rules traffic
	verdict=$(grep -m1 '^Verdict:' "$out" | cut -d' ' -f2-)
	rules=$(grep -m1 '^Rules:' "$out" | cut -d' ' -f2- | cut -d';' -f1)
	traffic=$(grep -m1 '^traffic:' "$out" | cut -d' ' -f2-3)
	printf '%-9s seed %-2s exit %s  %-8s %s; %s; %ss wall, peak %s KB\n' "$name" "$seed" "$rc" "$verdict" "$rules" "$traffic" "$wall" "$peak"
	if [ "$rc" != 0 ]; then
		failed=1
		grep -E '^\s+FAILED|^  [A-Z]+-[A-Z]+-[0-9]+' "$out" | head -20
		# The first problems of each failed rule, with their requests.
		sed -n '/\[FAILED\] [A-Z]*-[A-Z]*-[0-9]*/,+14p' "$out" | head -60
	fi
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"

if run static; then
	serve static $base_port || exit 1
	for s in $(seq 1 "$seeds"); do conform static "http://127.0.0.1:$base_port" "$s"; done
	stop
fi

if run growing; then
	serve growing $((base_port + 1)) --block-interval 20ms || exit 1
	for s in $(seq 1 "$seeds"); do conform growing "http://127.0.0.1:$((base_port + 1))" "$s"; done
	stop
fi

if run scale; then
	serve scale $((base_port + 2)) --scale "$scale" || exit 1
	conform "scale$scale" "http://127.0.0.1:$((base_port + 2))" 1
	stop
fi

nginx_bin=$(command -v nginx || ls /usr/sbin/nginx 2>/dev/null)
if ! run replicas; then
	:
elif [ -z "$nginx_bin" ]; then
	echo "replicas: skipped: nginx is not installed (apt-get install nginx-light)"
else
	genesis=$(date -u -d '-30 seconds' +%Y-%m-%dT%H:%M:%SZ)
	serve replica1 $((base_port + 3)) --block-interval 20ms --genesis-time "$genesis" || exit 1
	serve replica2 $((base_port + 4)) --block-interval 20ms --genesis-time "$genesis" || exit 1
	mkdir -p "$work/nginx"
	cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $work/nginx/body;
	proxy_temp_path $work/nginx/proxy;
	fastcgi_temp_path $work/nginx/fastcgi;
	uwsgi_temp_path $work/nginx/uwsgi;
	scgi_temp_path $work/nginx/scgi;
	upstream replicas { server 127.0.0.1:$((base_port + 3)); server 127.0.0.1:$((base_port + 4)); keepalive 16; }
	server {
		listen 127.0.0.1:$((base_port + 5));
		location / { proxy_pass http://replicas; proxy_http_version 1.1; proxy_set_header Connection ""; }
	}
}
EOF
	"$nginx_bin" -c "$work/nginx/nginx.conf" -g 'daemon off;' >"$work/nginx.log" 2>&1 &
	pids+=($!)
	sleep 1
	for s in $(seq 1 "$replica_seeds"); do conform replicas "http://127.0.0.1:$((base_port + 5))" "$s"; done
	stop
fi

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
exit $failed
