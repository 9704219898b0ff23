#!/bin/sh
# The streaming replica's entrypoint. On first start (an empty data directory) it copies the primary with
# pg_basebackup -R, which also writes standby.signal and primary_conninfo; then it hands over to the official
# image's entrypoint, which finds the data directory made and starts PostgreSQL on it as a hot standby.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  chown postgres:postgres "$PGDATA"
  chmod 700 "$PGDATA"
  until gosu postgres pg_basebackup --host="$PRIMARY_HOST" --username=replicator --pgdata="$PGDATA" \
    --write-recovery-conf --wal-method=stream --checkpoint=fast; do
    echo "replica: base backup of $PRIMARY_HOST failed; retrying in 2 s" >&2
    sleep 2
  done
fi
exec docker-entrypoint.sh "$@"
