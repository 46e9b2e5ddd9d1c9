"""Against a real server: sign-in with the key file, workspaces, pages, errors, idempotency."""

import json
import re
import unittest
import urllib.error
import urllib.request
import uuid

from support import KEY_FILE, URL, LiveWorkspaceCase, client, needs_server, unique

import hearth

REQUEST_ID = re.compile(r"^[0-9a-z]{27}$")


@needs_server
class AuthTest(unittest.TestCase):
    def test_key_file_signs_in_as_its_principal(self):
        with open(KEY_FILE, encoding="utf-8") as f:
            principal = json.load(f)["principal"]
        self.assertEqual(principal, client().me()["principal"]["id"])

    def test_a_refused_token_is_replaced_once_and_the_call_goes_through(self):
        h = client()
        h.me()
        tokens = h._transport.tokens
        tokens._access_token = "not-a-token"  # as if the server had been reset since
        self.assertIn("principal", h.me())
        self.assertNotEqual("not-a-token", tokens._access_token)

    def test_a_bad_token_is_unauthorized_with_its_request_id(self):
        with self.assertRaises(hearth.Unauthorized) as ctx:
            hearth.Hearth(URL, token="bogus", env={}).me()
        e = ctx.exception
        self.assertEqual(("unauthenticated", 401), (e.code, e.status))
        self.assertRegex(e.request_id, REQUEST_ID)


@needs_server
class WorkspaceTest(unittest.TestCase):
    def setUp(self):
        self.h = client()
        self.made: list[hearth.Workspace] = []

    def tearDown(self):
        for ws in self.made:
            try:
                ws.delete(cascade=True)
            except hearth.NotFound:
                pass

    def make(self) -> hearth.Workspace:
        ws = self.h.workspaces.create(unique())
        self.made.append(ws)
        return ws

    def test_create_get_by_name_and_id_rename_delete(self):
        ws = self.make()
        self.assertEqual("active", ws.state)
        self.assertIsNone(ws.deleted_at)
        self.assertEqual(ws.id, self.h.workspace(ws.name).id)
        self.assertEqual(ws.name, self.h.workspace(ws.id).name)
        new_name = unique()
        ws.rename(new_name)
        self.assertEqual(new_name, self.h.workspace(ws.id).name)
        with self.assertRaises(hearth.NotFound):
            self.h.workspace(ws.name[:-1] + "x" if not ws.name.endswith("x") else ws.name[:-1] + "y")
        ws.delete()
        self.assertIsNotNone(ws.deleted_at)
        with self.assertRaises(hearth.NotFound):
            self.h.workspace(ws.id)

    def test_list_goes_over_every_page(self):
        made = {self.make().id for _ in range(3)}
        page = self.h.request("GET", "/workspaces", query={"limit": 2}).json
        self.assertEqual(2, len(page["workspaces"]))
        self.assertTrue(page["has_more"])
        listed = [ws.id for ws in self.h.workspaces.list(limit=2)]
        self.assertEqual(len(listed), len(set(listed)), "a page repeated an item")
        self.assertLessEqual(made, set(listed))
        self.assertEqual(listed, sorted(listed))  # ids are ordered by creation, as are pages

    def test_errors_map_to_their_classes(self):
        ws = self.make()
        with self.assertRaises(hearth.Conflict) as ctx:
            self.h.workspaces.create(ws.name)
        self.assertEqual((409, "conflict"), (ctx.exception.status, ctx.exception.code))
        self.assertRegex(ctx.exception.request_id, REQUEST_ID)

        with self.assertRaises(hearth.ValidationError) as ctx:
            self.h.workspaces.create("Not_A_Label")
        self.assertEqual("invalid_request", ctx.exception.code)
        self.assertIn("name", ctx.exception.details.get("fields", {}))

        with self.assertRaises(hearth.NotFound) as ctx:
            self.h.workspace(unique("gone"))
        self.assertEqual(404, ctx.exception.status)
        self.assertRegex(ctx.exception.request_id, REQUEST_ID)

        with self.assertRaises(hearth.MethodNotAllowed) as ctx:
            self.h.request("PUT", "/me", {})
        self.assertIn("GET", ctx.exception.details.get("allowed", []))

        ws.variables.create("keep", "1")
        with self.assertRaises(hearth.NotEmpty) as ctx:
            ws.delete()
        self.assertIsInstance(ctx.exception, hearth.Conflict)
        self.assertEqual(1, ctx.exception.details.get("variables"))


@needs_server
class IdempotencyTest(LiveWorkspaceCase):
    def test_same_key_same_body_replays_the_first_answer(self):
        key = str(uuid.uuid4())
        path = f"/workspaces/{self.ws.id}/variables"
        first = self.h.request("POST", path, {"name": "once", "value": "v"}, idempotency_key=key)
        again = self.h.request("POST", path, {"name": "once", "value": "v"}, idempotency_key=key)
        self.assertEqual(201, again.status)
        self.assertFalse(first.replayed)
        self.assertTrue(again.replayed)
        self.assertEqual(first.json["variable"]["id"], again.json["variable"]["id"])
        self.assertNotEqual(first.request_id, again.request_id)
        with self.assertRaises(hearth.IdempotencyKeyReused) as ctx:
            self.h.request("POST", path, {"name": "other", "value": "v"}, idempotency_key=key)
        self.assertEqual(422, ctx.exception.status)
        self.assertEqual(["once"], [v.name for v in self.ws.variables.list() if v.name in ("once", "other")])

    def test_sdk_calls_with_a_given_key_make_one_resource(self):
        key = str(uuid.uuid4())
        a = self.ws.variables.create("given", "1", idempotency_key=key)
        b = self.ws.variables.create("given", "1", idempotency_key=key)
        self.assertEqual(a.id, b.id)
        self.assertEqual(1, sum(v.name == "given" for v in self.ws.variables.list()))

    def test_sdk_calls_get_fresh_keys(self):
        self.ws.variables.create("twice", "1")
        with self.assertRaises(hearth.Conflict):  # a second call is a second create, not a replay
            self.ws.variables.create("twice", "1")

    def test_the_server_wants_a_key_on_creates(self):
        token = self.h._transport.tokens.token(self.h._transport)
        request = urllib.request.Request(f"{URL}/workspaces/{self.ws.id}/variables", method="POST",
                                         data=b'{"name":"nokey","value":"1"}',
                                         headers={"Authorization": "Bearer " + token,
                                                  "Content-Type": "application/json"})
        with self.assertRaises(urllib.error.HTTPError) as ctx:
            urllib.request.urlopen(request, timeout=30)
        body = json.loads(ctx.exception.read())
        error = hearth.error_from_answer(ctx.exception.code, body, dict(ctx.exception.headers))
        self.assertIs(hearth.IdempotencyKeyRequired, type(error))


@needs_server
class ApiKeyTest(LiveWorkspaceCase):
    def test_a_key_acts_in_its_workspace_with_its_role_until_revoked(self):
        key = self.ws.api_keys.create("ci", role="viewer", expires_in_days=30)
        self.assertRegex(key.secret, r"^hk_[0-9a-f]{64}$")
        self.assertEqual(("ci", "viewer", "active", key.secret[:8], self.ws.id),
                         (key.name, key.role, key.state, key.prefix, key.workspace))
        self.assertIsNotNone(key.expires_at)
        self.assertNotIn(key.secret, repr(key))
        self.assertIn(key.id, [k.id for k in self.ws.api_keys.list(limit=1)])
        self.assertIsNone(self.ws.api_keys.get(key.id).secret)  # shown once, never again

        as_key = hearth.Hearth(URL, api_key=key.secret, env={})
        self.assertEqual([self.ws.id], [w.id for w in as_key.workspaces.list()])
        self.assertEqual(self.ws.name, as_key.workspace(self.ws.id).name)
        from_env = hearth.Hearth(env={"HEARTH_URL": URL, "HEARTH_API_KEY": key.secret})
        self.assertEqual(self.h.me()["principal"]["id"], from_env.me()["principal"]["id"])  # it acts as its maker
        self.assertIsNotNone(key.refresh().last_used_at)
        with self.assertRaises(hearth.Forbidden):  # a viewer
            as_key.workspace(self.ws.id).variables.create("nope", "1")
        with self.assertRaises(hearth.Forbidden):  # keys may not make workspaces
            as_key.workspaces.create(unique())
        other = self.h.workspaces.create(unique())
        try:
            with self.assertRaises(hearth.NotFound):  # other workspaces do not exist for it
                as_key.workspace(other.id)
        finally:
            other.delete()

        key.revoke()
        self.assertEqual("revoked", key.state)
        self.assertIsNotNone(key.revoked_at)
        with self.assertRaises(hearth.Unauthorized) as ctx:
            list(as_key.workspaces.list())
        self.assertEqual(401, ctx.exception.status)
        self.assertEqual("revoked", self.ws.api_keys.get(key.id).state)

    def test_revoke_by_id_and_an_editor_key_edits(self):
        key = self.ws.api_keys.create("deploy", role="editor")
        self.assertIsNone(key.expires_at)
        as_key = hearth.Hearth(URL, api_key=key.secret, env={})
        made = as_key.workspace(self.ws.id).variables.create("by-key", "v")
        self.assertEqual("v", self.ws.variables.get(made.id).value)
        self.assertEqual("revoked", self.ws.api_keys.revoke(key.id).state)
        with self.assertRaises(hearth.Unauthorized):
            as_key.workspace(self.ws.id)


@needs_server
class EmptyListsTest(LiveWorkspaceCase):
    """Calls that need no computer to run: filters and the workspace's kept checkpoints."""

    def test_computer_filters_are_checked_by_the_server(self):
        self.assertEqual([], list(self.ws.computers.list(labels={"team": "web", "a.b/c": "1"},
                                                         state=["ready", "sleeping"])))
        with self.assertRaises(hearth.ValidationError):
            list(self.ws.computers.list(state="dozing"))

    def test_no_kept_checkpoints_yet(self):
        self.assertEqual([], list(self.ws.checkpoints.list()))
        with self.assertRaises(hearth.NotFound):
            self.ws.checkpoints.get("00000000000000000000000000a")


@needs_server
class VariablePagesTest(LiveWorkspaceCase):
    def test_variables_over_pages_of_one(self):
        names = {f"v{i}" for i in range(3)}
        for name in names:
            self.ws.variables.create(name, "secret-" + name)
        listed = list(self.ws.variables.list(limit=1))
        self.assertEqual(names, {v.name for v in listed})
        self.assertEqual(3, len(listed))
        v = self.ws.variables.get("v1")
        self.assertEqual("secret-v1", v.value)
        v.update(value="changed")
        self.assertEqual("changed", self.ws.variables.get(v.id).value)
        self.assertNotIn("changed", repr(v))
        v.delete()
        self.assertIsNotNone(v.deleted_at)
        self.assertEqual({"v0", "v2"}, {x.name for x in self.ws.variables.list()})


if __name__ == "__main__":
    unittest.main()
