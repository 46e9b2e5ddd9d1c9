"""Against a real server that runs databases (skipped with HEARTH_TEST_DATABASES=0)."""

import glob
import os
import socket
import subprocess
import unittest
import urllib.parse

from support import LiveWorkspaceCase, needs_databases

import hearth

PSQL = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))


def psql(uri: str, sql: str) -> subprocess.CompletedProcess:
    return subprocess.run([PSQL[-1], uri, "-X", "-A", "-t", "-c", sql], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PGCONNECT_TIMEOUT": "20"})


@needs_databases
class DatabaseTest(LiveWorkspaceCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        try:
            cls.db = cls.ws.databases.create("app")
        except Exception:
            cls.tearDownClass()
            raise

    def test_create_answers_a_sleeping_postgres(self):
        self.assertEqual(("app", "postgres", self.ws.id), (self.db.name, self.db.engine, self.db.workspace))
        self.assertIn(self.db.state, ("sleeping", "ready"))
        self.assertIn(self.db.id, [d.id for d in self.ws.databases.list(limit=1)])
        self.assertEqual(self.db.id, self.ws.databases.get("app").id)
        self.assertEqual(self.db.id, self.h.database(self.db.id).id)

    def test_connection_uri_names_a_port_that_answers(self):
        conn = self.db.connection()
        uri = urllib.parse.urlsplit(conn.uri)
        self.assertEqual(("postgresql", "app", conn.password, conn.host, conn.port, "/app"),
                         (uri.scheme, uri.username, uri.password, uri.hostname, uri.port, uri.path))
        self.assertEqual("sslmode=require", uri.query)
        self.assertNotEqual("********", conn.password)
        self.assertNotIn(conn.password, repr(conn))
        self.assertEqual((self.db.host, self.db.port), (conn.host, conn.port))
        with socket.create_connection((conn.host, conn.port), timeout=10):
            pass  # a bare TCP connect never wakes it, but the port is open

    @unittest.skipUnless(PSQL, "no psql under /usr/lib/postgresql")
    def test_psql_through_the_uri_wakes_it_and_sleep_stops_it(self):
        conn = self.db.connection()
        done = psql(conn.uri, "select 40 + 2")
        self.assertEqual(0, done.returncode, done.stderr)
        self.assertEqual("42", done.stdout.strip())
        self.assertEqual("ready", self.db.refresh().state)
        self.db.sleep()
        self.assertEqual("sleeping", self.db.state)
        self.db.wake()
        self.assertEqual("ready", self.db.state)

    @unittest.skipUnless(PSQL, "no psql under /usr/lib/postgresql")
    def test_reset_credentials_retires_the_old_password(self):
        old = self.db.connection()
        new = self.db.reset_credentials()
        self.assertNotEqual(old.password, new.password)
        self.assertEqual(0, psql(new.uri, "select 1").returncode)
        refused = psql(old.uri, "select 1")
        self.assertNotEqual(0, refused.returncode)
        self.assertIn("password", refused.stderr)

    @unittest.skipUnless(PSQL, "no psql under /usr/lib/postgresql")
    def test_checkpoint_and_branch_keep_the_data(self):
        source = self.ws.databases.create("src")
        try:
            done = psql(source.connection().uri, "create table t (v text); insert into t values ('kept')")
            self.assertEqual(0, done.returncode, done.stderr)
            ck = source.checkpoints.create("snap")
            self.assertEqual(("ready", "database", "consistent"), (ck.state, ck.source_type, ck.consistency))
            self.assertEqual(ck.id, source.checkpoints.get("snap").id)
            self.assertEqual(0, psql(source.connection().uri, "delete from t").returncode)
            branch = self.ws.databases.create("branch", from_checkpoint=ck)
            try:
                self.assertEqual((source.id, ck.id), (branch.parent, branch.from_checkpoint))
                self.assertEqual("kept", psql(branch.connection().uri, "select v from t").stdout.strip())
                self.assertEqual("", psql(source.connection().uri, "select v from t").stdout.strip())
            finally:
                branch.delete()
        finally:
            source.delete()

    def test_a_branch_at_a_moment_keeps_the_commits_before_it(self):
        import datetime
        import time
        source = self.ws.databases.create("moments")
        try:
            self.assertEqual(0, psql(source.connection().uri, "create table t (v text); insert into t values ('before')").returncode)
            time.sleep(0.05)
            moment = datetime.datetime.now(datetime.timezone.utc)
            time.sleep(0.05)
            self.assertEqual(0, psql(source.connection().uri, "insert into t values ('after')").returncode)
            self.assertIsNotNone(source.history()["earliest"])
            self.assertTrue(any("insert into t" in s["query"] for s in source.insights(limit=100)))
            branch = self.ws.databases.create("then", from_database=source, at=moment)
            try:
                self.assertEqual(source.id, branch.parent)
                self.assertEqual("before", psql(branch.connection().uri, "select string_agg(v, ',') from t").stdout.strip())
            finally:
                branch.delete()
            trip = source.time_travel(moment, ttl_seconds=120)
            try:
                self.assertEqual(source.id, trip.database)
                self.assertEqual("before", psql(trip.connection.uri, "select string_agg(v, ',') from t").stdout.strip())
                self.assertEqual([trip.id], [t.id for t in source.time_travels()])
            finally:
                trip.end()
            self.assertEqual([], source.time_travels())
            backup = source.restore(moment)
            try:
                self.assertEqual(source.id, backup.parent)
                self.assertEqual("before", psql(source.connection().uri, "select string_agg(v, ',') from t").stdout.strip())
                self.assertEqual("after,before", psql(backup.connection().uri, "select string_agg(v, ',' order by v) from t").stdout.strip())
            finally:
                backup.delete()
        finally:
            source.delete()

    @unittest.skipUnless(PSQL, "no psql under /usr/lib/postgresql")
    def test_roles_and_databases_inside_it(self):
        db = self.ws.databases.create("tenants")
        try:
            role = db.roles.create("reporter")
            assert role.connection is not None
            self.assertEqual(("reporter", False, "reporter"), (role.name, role.owner, role.connection.user))
            self.assertEqual([("reporter", False), ("tenants", True)], [(r.name, r.owner) for r in db.roles.list()])
            shelf = db.pg_databases.create("shelf", owner=role)
            self.assertEqual(("shelf", "reporter", False), (shelf.name, shelf.owner_name, shelf.default))
            uri = role.connection.uri.replace("/tenants?", "/shelf?")
            done = psql(uri, "create table t (v int)")
            self.assertEqual(0, done.returncode, done.stderr)
            self.assertEqual("reporter", psql(uri, "select tableowner from pg_tables where tablename = 't'").stdout.strip())
            self.assertEqual("1", psql(role.connection.pooler_uri, "select 1").stdout.strip())
            old = role.connection
            new = role.reset_password()
            self.assertNotEqual(old.password, new.password)
            self.assertNotEqual(0, psql(old.uri, "select 1").returncode)
            with self.assertRaises(hearth.Conflict):
                role.delete()  # it owns shelf
            shelf.delete()
            self.assertEqual(["tenants"], [d.name for d in db.pg_databases.list()])
            role.delete()
            with self.assertRaises(hearth.Protected):
                db.roles.get("tenants").delete()
        finally:
            db.delete()

    def test_protected_database_refuses_delete(self):
        db = self.ws.databases.create("guarded", protected=True)
        try:
            with self.assertRaises(hearth.Protected) as ctx:
                db.delete()
            self.assertEqual(409, ctx.exception.status)
        finally:
            db.update(protected=False)
            db.delete()
        self.assertIsNotNone(db.deleted_at)

