"""Django's PostgreSQL backend (ENGINE `common.postgresql`), but for the health check of a reused connection.

With `CONN_HEALTH_CHECKS` Django checks a kept connection before the first query of every request by running
`SELECT 1`: a round trip to the server on every request, about a twentieth of a rating's CPU. A connection the
server dropped (a restart, `pg_terminate_backend`, an idle timeout) has already been sent the server's last
message and the end of the stream, so its socket is readable while nothing is asked of it; a healthy idle connection
has nothing to read. The check here is that: one `poll` of the socket, no round trip. Anything unexpected — a
readable socket, a connection not idle or not in a good state — falls back to Django's own `SELECT 1`, so a
connection is never kept that Django's check would have closed."""

import select

from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLDatabaseWrapper
from psycopg import Error, pq


class DatabaseWrapper(PostgreSQLDatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        try:
            pgconn = connection.pgconn
            if pgconn.status != pq.ConnStatus.OK or pgconn.transaction_status != pq.TransactionStatus.IDLE:
                return super().is_usable()
            waiting = select.poll()
            waiting.register(pgconn.socket, select.POLLIN | select.POLLPRI)
            if not waiting.poll(0):
                return True
        except (Error, OSError, ValueError):
            return False
        return super().is_usable()
