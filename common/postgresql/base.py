"""Django's PostgreSQL backend (ENGINE `common.postgresql`), but for the health check of a connection in steady use.

With `CONN_HEALTH_CHECKS` Django checks a kept connection before the first query of every request by running
`SELECT 1`: a round trip to the server on every request, about a twentieth of a rating's CPU. A connection the
server dropped (a restart, `pg_terminate_backend`, an idle timeout) has already been sent the server's last
message and the end of the stream, so its socket is readable while nothing is asked of it; a healthy idle connection
has nothing to read. The check here is that — one `poll` of the socket, no round trip — for a connection opened or
found usable in the last `POLL_CHECK_SECONDS`, as every connection of a busy worker has. Anything else falls
back to Django's own `SELECT 1`: a connection idle for longer (a firewall or NAT that silently forgot it sends
nothing, only the round trip finds out), a readable socket, a connection not idle or not in a good state."""

import select
import time

from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLDatabaseWrapper
from django.db.backends.postgresql.operations import DatabaseOperations as PostgreSQLDatabaseOperations
from psycopg import DataError, Error, pq

from common.compiled import PreparingCursor

POLL_CHECK_SECONDS = 5.0


class DatabaseOperations(PostgreSQLDatabaseOperations):
    def last_executed_query(self, cursor, sql, params):
        """A hot-path statement (common.compiled) is bound by the server: its text for the query log is composed as
        Django composes it under server-side binding."""
        if isinstance(cursor, PreparingCursor):
            try:
                return self.compose_sql(sql, params)
            except DataError:
                return None
        return super().last_executed_query(cursor, sql, params)


class DatabaseWrapper(PostgreSQLDatabaseWrapper):
    ops_class = DatabaseOperations
    known_usable_at = float("-inf")  # when the connection was opened or last passed a check (time.monotonic)

    def connect(self) -> None:
        super().connect()
        self.known_usable_at = time.monotonic()

    def is_usable(self) -> bool:
        now = time.monotonic()
        usable = self._socket_shows_usable() if now - self.known_usable_at < POLL_CHECK_SECONDS else None
        if usable is None:
            usable = super().is_usable()
        self.known_usable_at = now if usable else float("-inf")
        return usable

    def _socket_shows_usable(self) -> bool | None:
        """True for an idle connection with nothing waiting on its socket, False for one psycopg knows is closed,
        None when only a round trip can tell."""
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        try:
            pgconn = connection.pgconn
            if pgconn.status != pq.ConnStatus.OK or pgconn.transaction_status != pq.TransactionStatus.IDLE:
                return None
            waiting = select.poll()
            waiting.register(pgconn.socket, select.POLLIN | select.POLLPRI)
            return None if waiting.poll(0) else True
        except (Error, OSError, ValueError):
            return False
