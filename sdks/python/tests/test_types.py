"""The models are typed as docs/openapi.json types the API's objects (each wire field declared,
with the type the document gives it), and mypy accepts the package and a program written against
it, and refuses what the document forbids (typed_usage.py: each ``# type: ignore[...]`` there must
be an error, as mypy's --warn-unused-ignores holds it). (No server needed.)"""

import json
import os
import subprocess
import sys
import unittest

import support  # noqa: F401  (puts ../src first on sys.path)

import hearth.models as models

HERE = os.path.dirname(os.path.abspath(__file__))
DOCUMENT = os.path.join(HERE, "..", "..", "..", "docs", "openapi.json")
MODELS = {"Workspace": "Workspace", "Computer": "Computer", "Database": "Database", "Connection": "Connection",
          "Checkpoint": "Checkpoint", "Variable": "Variable", "ApiKey": "ApiKey", "Operation": "Operation",
          "Process": "ProcessInfo", "FileInfo": "FileInfo", "DatabaseRole": "DatabaseRole", "PgDatabase": "PgDatabase"}


def python_type(schema: dict) -> str:
    """The annotation a wire value of this JSON Schema has in the models."""
    if "anyOf" in schema:
        parts = [p for p in schema["anyOf"] if p.get("type") != "null"]
        text = " | ".join(python_type(p) for p in parts)
        return text + (" | None" if len(parts) != len(schema["anyOf"]) else "")
    if "oneOf" in schema:
        return " | ".join(python_type(p) for p in schema["oneOf"])
    if "$ref" in schema:
        return "dict[str, Any]"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(python_type({"type": k}) for k in kind)
    if kind == "string":
        # as Python keeps an annotation's text (ast.unparse): single quotes
        return "Literal[" + ", ".join(repr(v) for v in schema["enum"]) + "]" if "enum" in schema else "str"
    scalars = {"integer": "int", "number": "float", "boolean": "bool", "null": "None"}
    if kind in scalars:
        return scalars[kind]
    if kind == "array":
        return "list[" + python_type(schema.get("items", {})) + "]"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return "dict[str, " + python_type(schema["additionalProperties"]) + "]"
    return "dict[str, Any]" if kind == "object" else "Any"


class ModelsFollowTheDocumentTest(unittest.TestCase):
    def test_every_wire_field_is_declared_with_the_documents_type(self):
        with open(DOCUMENT, encoding="utf-8") as f:
            schemas = json.load(f)["components"]["schemas"]
        for model, schema in MODELS.items():
            cls = getattr(models, model)
            properties = schemas[schema]["properties"]
            with self.subTest(model=model):
                self.assertEqual(sorted(properties), sorted(cls._fields), "its fields are the API's")
                declared = cls.__annotations__
                for name, wire in properties.items():
                    self.assertEqual(python_type(wire), declared.get(name), f"{model}.{name}")

    def test_mypy_accepts_the_package_and_refuses_what_the_api_refuses(self):
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        run = subprocess.run([python, "-m", "mypy", "--warn-unused-ignores", "--no-error-summary",
                              os.path.join(HERE, "..", "src", "hearth"), os.path.join(HERE, "typed_usage.py")],
                             capture_output=True, text=True, cwd=HERE, timeout=300)
        self.assertEqual(0, run.returncode, run.stdout + run.stderr)


if __name__ == "__main__":
    unittest.main()
