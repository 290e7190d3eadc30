#!/usr/bin/env bash
# Smoke run: builds and starts the service on a free port with a throw-away data directory, waits for /health, sends
# one request per domain, and stops it. Exits non-zero on the first failure, with the service's log.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${SMOKE_PORT:-5077}
DATA=$(mktemp -d /tmp/smoke-data.XXXXXX)
LOG="$DATA.log"
npm run build > /dev/null
PORT=$PORT HOST=127.0.0.1 DATA_DIR=$DATA node dist/src/server.js > "$LOG" 2>&1 &
PID=$!
stop() {
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  rm -rf "$DATA" "$LOG"
}
trap stop EXIT
fail() {
  echo "smoke: $1" >&2
  tail -30 "$LOG" >&2
  exit 1
}
URL=http://127.0.0.1:$PORT
for _ in $(seq 1 120); do
  curl -sf "$URL/health" > /dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || fail "the service exited before answering /health"
  sleep 1
done
curl -sf "$URL/health" > /dev/null || fail "/health did not answer within 120 s"
post() { curl -sf -X POST "$URL$1" -H 'content-type: application/json' -d "$2" || fail "POST $1 failed"; }
post /api/predict '{"pclass": 1, "sex": "female", "age": 29, "sibsp": 0, "parch": 0, "embarked": "C"}' | grep -q '"prediction"' ||
  fail "predict gave no prediction"
post /analyze/sentiment '{"text": "The staff were friendly and the room was spotless."}' | grep -q '"sentiment"' ||
  fail "sentiment gave no sentiment"
post /rag/search '{"query": "economy"}' | grep -q '"results"' || fail "search gave no results field"
curl -sf "$URL/api/collection/status" | grep -q '"movies"' || fail "the collection status has no movies"
echo "smoke: $(node --version): health, predict, sentiment, search and collection status answered"
