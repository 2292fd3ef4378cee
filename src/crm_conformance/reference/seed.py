"""The seeded world: two workspaces with what a test needs and cannot create itself.

Each workspace (`primary`, `secondary`) gets a full-scope workspace token (random per
start), an AI agent, users (an admin first), two pipelines with stages and default
probabilities, lost reasons, custom-field definitions, channels and audiences.
Timestamps are spread a second apart so orders by creation are unambiguous.
"""

from datetime import timedelta

from crm_conformance.reference.clock import now, stamp
from crm_conformance.reference.identifiers import new_id
from crm_conformance.reference.storage import Transaction
from crm_conformance.reference.tokens import issue_token

WORKSPACES = ("primary", "secondary")

PIPELINES = (
    ("Sales", (("Lead", 10), ("Qualified", 30), ("Proposal", 60), ("Negotiation", 80))),
    ("Renewals", (("Due", 50), ("Contacted", 70), ("Renewed", 100))),
)
LOST_REASONS = ("Price", "Timing", "Competitor", "No response")
CUSTOM_FIELDS = (
    ("contact", "industry", "Industry", "text"),
    ("contact", "lifetime_value", "Lifetime value", "number"),
    ("organization", "segment", "Segment", "text"),
    ("deal", "source", "Source", "text"),
)
USERS = (
    ("Ada Admin", "admin", "active"),
    ("Ben Member", "member", "active"),
    ("Cleo Member", "member", "active"),
)
CHANNELS = (("chatapp_api", "Business line"), ("web_widget", "Website chat"))
AUDIENCES = ("Newsletter", "Trial users", "Lapsed customers")


def seed(tx: Transaction, secret: bytes) -> dict[str, str]:
    """Seed every workspace; returns the full-scope token of each, by workspace name."""
    return {workspace: _seed_workspace(tx, secret, workspace) for workspace in WORKSPACES}


def _seed_workspace(tx: Transaction, secret: bytes, workspace: str) -> str:
    start = now() - timedelta(days=30)

    def at(seconds: int) -> str:
        return stamp(start + timedelta(seconds=seconds))

    tx.set_setting(workspace, "workspace.name", workspace)
    agent = tx.insert(workspace, "agent", {"name": "AI agent"}, created_at=at(0))
    tx.set_setting(workspace, "agent_id", agent["id"])
    for index, (name, role, status) in enumerate(USERS):
        email = f"{name.split()[0].lower()}.{workspace}@example.com"
        record = {"name": name, "email": email, "role": role, "status": status}
        tx.insert(workspace, "user", record, created_at=at(1 + index))
    for index, (name, stages) in enumerate(PIPELINES):
        tx.insert(
            workspace,
            "pipeline",
            {
                "name": name,
                "position": index,
                "stages": [
                    {
                        "id": new_id("stage"),
                        "object": "stage",
                        "name": stage,
                        "position": position,
                        "default_probability": probability,
                    }
                    for position, (stage, probability) in enumerate(stages)
                ],
            },
            created_at=at(10 + index),
        )
    for index, name in enumerate(LOST_REASONS):
        tx.insert(workspace, "lost_reason", {"name": name}, created_at=at(20 + index))
    for index, (resource, key, label, kind) in enumerate(CUSTOM_FIELDS):
        record = {"resource": resource, "key": key, "label": label, "type": kind}
        tx.insert(workspace, "field", record, created_at=at(30 + index))
    for index, (platform, name) in enumerate(CHANNELS):
        record = {"platform": platform, "name": name, "status": "active"}
        tx.insert(workspace, "channel", record, created_at=at(40 + index))
    for index, name in enumerate(AUDIENCES):
        record = {"name": name, "status": "ready"}
        tx.insert(workspace, "audience", record, created_at=at(50 + index * 60))
    return issue_token(tx, secret, workspace=workspace).token
