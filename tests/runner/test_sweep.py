"""`sweep` against the reference server: every kind a run names with its prefix is deleted
(tags, campaigns and users too), and what cannot be deleted makes the exit code 1."""

from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.cli import main
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.reference import running_server
from crm_conformance.reference.server import ServedTarget

PREFIX = "cc-sweep1-main-"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def leave_one_of_each(served: ServedTarget) -> dict[str, str]:
    """What a run leaves: one prefixed record of each kind it makes, by resource."""
    assert served.adapter_url is not None
    adapter = AdapterClient(adapter_url=served.adapter_url)
    api = ApiClient(base_url=served.base_url, token=served.tokens["full"])
    try:

        def record(kind: str, **fields: Any) -> str:
            return str(adapter.create_record(kind=kind, fields=fields)["id"])

        contact = record("contact", first_name=f"{PREFIX}contact")
        tag = api.post("/v1/tags", json={"name": f"{PREFIX}tag", "kind": "contact"}).json()
        return {
            "contacts": contact,
            "organizations": record("organization", name=f"{PREFIX}org"),
            "deals": record("deal", title=f"{PREFIX}deal", contact_id=contact),
            "activities": record(
                "activity", title=f"{PREFIX}act", due_at="2030-01-01T00:00:00Z", record_id=contact
            ),
            "tags": tag["id"],
            "campaigns": adapter.create_campaign(status="draft", name=f"{PREFIX}campaign")["id"],
            "users": adapter.create_user(name=f"{PREFIX}user")["id"],
        }
    finally:
        adapter.close()
        api.close()


def test_sweep_deletes_every_kind_a_run_leaves(tmp_path: Path) -> None:
    with running_server() as served:
        leave_one_of_each(served)
        target = served.write_target_file(tmp_path / "target.toml")
        result = invoke("sweep", "--target", str(target), "--prefix", PREFIX)
        again = invoke("sweep", "--target", str(target), "--prefix", PREFIX)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"sweep {PREFIX}*: 7 deleted (1 contacts, 1 organizations")
    assert "1 tags, 1 campaigns, 1 users" in result.output
    assert again.exit_code == 0
    assert f"sweep {PREFIX}*: 0 deleted" in again.output


def test_what_cannot_be_deleted_is_named_and_exits_1(tmp_path: Path) -> None:
    """Without the adapter, only the API's deletes are left: users have none."""
    with running_server() as served:
        left = leave_one_of_each(served)
        text = served.target_file_text().replace(f'adapter_url = "{served.adapter_url}"\n', "")
        target = tmp_path / "target.toml"
        target.write_text(text, encoding="utf-8")
        result = invoke("sweep", "--target", str(target), "--prefix", PREFIX)
    assert result.exit_code == 1, result.output
    assert f"  {left['users']}  users: API DELETE -> " in result.output
    assert "could not delete" in result.output
