#!/bin/sh
# Runs once, when the primary's data directory is created: the replication role the standby connects as, and its
# access rule. Keep the network private; use a password for replicator on anything else.
set -e
psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -c "create role replicator replication login"
echo "host replication replicator all trust" >> "$PGDATA/pg_hba.conf"
