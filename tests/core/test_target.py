"""Target files: every mistake is one TargetFileError naming the key (DESIGN.md)."""

from pathlib import Path

import pytest

from crm_conformance import TargetFileError
from crm_conformance.core.model.target import load_target

GOOD = """
base_url = "http://127.0.0.1:8000/"
adapter_url = "http://127.0.0.1:9100/_adapter"

[tokens.full]
value_env = "CRM_TOKEN_FULL"

[tokens.other_workspace]
value = "sk_test_other.verifier"
scopes = ["contacts:read"]

[conventions]
tag_catalogue_field = "kind"
[conventions.contact_filters]
status = "status"

[write_policy]
contacts = false
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "target.toml"
    path.write_text(text)
    return path


def test_a_good_file_loads_with_sources(tmp_path: Path) -> None:
    target = load_target(path=write(tmp_path, GOOD), environ={"CRM_TOKEN_FULL": "sk_test_a.b"})
    assert target.base_url == "http://127.0.0.1:8000"
    assert target.adapter_url == "http://127.0.0.1:9100/_adapter"
    assert target.tokens == {"full": "sk_test_a.b", "other_workspace": "sk_test_other.verifier"}
    assert target.conventions == {"tag_catalogue_field": "kind", "contact_filters.status": "status"}
    assert target.declared_scopes == {"other_workspace": frozenset({"contacts:read"})}
    assert target.write_policy == {"contacts": False}
    assert target.sources["tokens.full"] == "environment variable CRM_TOKEN_FULL"
    assert target.sources["base_url"] == "target file target.toml"
    assert "sk_test_a.b" not in str(target.describe())


def test_base_url_flag_overrides_the_file_but_not_adapter_url(tmp_path: Path) -> None:
    target = load_target(
        path=write(tmp_path, GOOD),
        base_url="https://other.example",
        environ={"CRM_TOKEN_FULL": "sk_test_a.b"},
    )
    assert target.base_url == "https://other.example"
    assert target.adapter_url == "http://127.0.0.1:9100/_adapter"
    assert target.sources["base_url"] == "--base-url"


def test_base_url_alone_reads_tokens_from_the_environment() -> None:
    target = load_target(base_url="http://h:1", environ={"CRM_TOKEN_FULL": "sk_test_x.y"})
    assert target.tokens == {"full": "sk_test_x.y"}
    with pytest.raises(TargetFileError, match="CRM_TOKEN_FULL"):
        load_target(base_url="http://h:1", environ={})


MINIMAL = 'base_url = "http://h:1"\n[tokens.full]\nvalue = "sk_test_a.b"\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[tokens.full]\nvalue = "sk_test_a.b"\n', "missing key 'base_url'"),
        ('base_url = "ftp://h"\n[tokens.full]\nvalue = "x"\n', "base_url = 'ftp://h'"),
        ('base_url = "http://h/v1"\n[tokens.full]\nvalue = "x"\n', "ends with /v1"),
        ('base_url = "http://h:99999"\n[tokens.full]\nvalue = "x"\n', "invalid port"),
        ("base_url = 3\n", "base_url = 3 must be a str"),
        ('base_url = "http://h"\n', "missing table [tokens.full]"),
        (
            'base_url = "http://h"\n[tokens.admin]\nvalue = "x"\n',
            "unknown token role 'tokens.admin'",
        ),
        ('base_url = "http://h"\n[tokens.full]\n', "tokens.full needs exactly one of value"),
        (
            'base_url = "http://h"\n[tokens.full]\nvalue_env = "CRM_UNSET_FOR_TEST"\n',
            "tokens.full.value_env = 'CRM_UNSET_FOR_TEST' names an environment variable",
        ),
        (MINIMAL + 'adapter_url = "nope"\n', "unknown key 'tokens.full.adapter_url'"),
        (MINIMAL.replace("base_url", "base-url"), "unknown key 'base-url'"),
        ('allow_live = "yes"\n' + MINIMAL, "allow_live = 'yes' must be a bool"),
        (MINIMAL + "[conventions]\ntag_catalogue_field = 1\n", "conventions.tag_catalogue_field"),
        (MINIMAL + "[write_policy]\ncontacts = 1\n", "write_policy.contacts = 1"),
        ('base_url = "http://h"\n[tokens.full\n', "invalid TOML"),
        ("timeout = 0\n" + MINIMAL, "timeout = 0 must be a number of seconds"),
        (
            "max_rate_limit_wait = 0\n" + MINIMAL,
            "max_rate_limit_wait = 0 must be a number of seconds, above 0 and at most 86400",
        ),
        ("max_rate_limit_wait = 90000\n" + MINIMAL, "max_rate_limit_wait = 90000 must be"),
        ('max_rate_limit_wait = "1h"\n' + MINIMAL, "max_rate_limit_wait = '1h' must be"),
        ("max_rate_limit_wait = true\n" + MINIMAL, "max_rate_limit_wait = True must be"),
    ],
)
def test_each_mistake_names_its_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(TargetFileError) as caught:
        load_target(path=write(tmp_path, text), environ={})
    assert message in str(caught.value)


def test_the_rate_limit_wait_ceiling_defaults_to_five_minutes_and_can_be_raised(
    tmp_path: Path,
) -> None:
    assert load_target(path=write(tmp_path, MINIMAL), environ={}).max_rate_limit_wait == 300
    raised = load_target(path=write(tmp_path, "max_rate_limit_wait = 3600\n" + MINIMAL))
    assert raised.max_rate_limit_wait == 3600
    assert raised.sources["max_rate_limit_wait"] == "target file target.toml"
    assert raised.describe()["max_rate_limit_wait"] == 3600


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(TargetFileError, match="line 3"):
        load_target(path=write(tmp_path, 'base_url = "http://h"\n\nnot toml at all\n'), environ={})


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(TargetFileError, match="no such file"):
        load_target(path=tmp_path / "absent.toml")


def test_a_live_token_is_refused_unless_allowed(tmp_path: Path) -> None:
    live = 'base_url = "http://h"\n[tokens.full]\nvalue = "sk_live_sel.ver"\n'
    with pytest.raises(TargetFileError) as caught:
        load_target(path=write(tmp_path, live), environ={})
    message = str(caught.value)
    assert "live workspace token" in message
    assert "allow_live = true" in message
    assert "sk_live_sel.ver" not in message
    allowed = write(tmp_path, "allow_live = true\n" + live)
    assert load_target(path=allowed, environ={}).allow_live


ADAPTER_SECRET = """
base_url = "http://127.0.0.1:8000"
adapter_url = "http://127.0.0.1:9100"

[tokens.full]
value = "sk_test_a.b"
"""


def test_adapter_token_is_read_from_the_environment_and_kept_out_of_describe(
    tmp_path: Path,
) -> None:
    text = ADAPTER_SECRET + '\n[adapter_token]\nvalue_env = "CRM_ADAPTER_TOKEN"\n'
    target = load_target(
        path=write(tmp_path, text), environ={"CRM_ADAPTER_TOKEN": "adapter-secret-1"}
    )
    assert target.adapter_token == "adapter-secret-1"
    assert target.sources["adapter_token"] == "environment variable CRM_ADAPTER_TOKEN"
    assert target.secrets == ("sk_test_a.b", "adapter-secret-1")
    assert target.describe()["adapter_token"] is True
    assert "adapter-secret-1" not in str(target.describe()) + repr(target)


def test_adapter_token_inline_and_absent(tmp_path: Path) -> None:
    inline = load_target(
        path=write(tmp_path, ADAPTER_SECRET + '\n[adapter_token]\nvalue = "inline-secret"\n')
    )
    assert inline.adapter_token == "inline-secret"
    absent = load_target(path=write(tmp_path, ADAPTER_SECRET))
    assert absent.adapter_token is None
    assert absent.secrets == ("sk_test_a.b",)
    assert absent.describe()["adapter_token"] is False


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('adapter_token = "bare"', "adapter_token must be a table with value or value_env"),
        ("[adapter_token]", "adapter_token needs exactly one of value or value_env"),
        ('[adapter_token]\nvalue = "a"\nvalue_env = "B"', "needs exactly one of"),
        ('[adapter_token]\nscopes = ["x"]', "unknown key 'adapter_token.scopes'"),
        ('[adapter_token]\nvalue = " padded "', "adapter_token is empty or has surrounding"),
        (
            '[adapter_token]\nvalue_env = "CRM_UNSET_SECRET"',
            "adapter_token.value_env = 'CRM_UNSET_SECRET' names an environment variable that "
            "is not set",
        ),
    ],
)
def test_a_bad_adapter_token_is_one_error_naming_the_key(
    tmp_path: Path, table: str, message: str
) -> None:
    # A bare key must precede the tables: put it at the top.
    text = (
        table + "\n" + ADAPTER_SECRET
        if not table.startswith("[")
        else ADAPTER_SECRET + "\n" + table + "\n"
    )
    with pytest.raises(TargetFileError, match=message.replace("(", r"\(").replace(".", r"\.")):
        load_target(path=write(tmp_path, text), environ={})


POOLED = 'base_url = "http://h:1"\n[tokens.full]\nvalue = "sk_test_a.b"\n'


def test_a_pool_of_full_tokens_is_read_from_the_environment_and_kept_secret(
    tmp_path: Path,
) -> None:
    text = "token_pool = 3\n" + POOLED + 'values_env = ["CRM_POOL_1", "CRM_POOL_2"]\n'
    environ = {"CRM_POOL_1": "sk_test_p1.v", "CRM_POOL_2": "sk_test_p2.v"}
    target = load_target(path=write(tmp_path, text), environ=environ)
    assert target.pool == ("sk_test_p1.v", "sk_test_p2.v")
    assert target.token_pool == 3
    assert target.tokens == {"full": "sk_test_a.b"}  # the configured token stays the one
    assert set(target.secrets) >= {"sk_test_p1.v", "sk_test_p2.v"}  # the redactor's
    assert target.describe()["token_pool"] == {"given": 2, "minted": 3}
    assert "sk_test_p" not in str(target.describe()) + repr(target)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (POOLED + 'values_env = "CRM_POOL_1"\n', "tokens.full.values_env must be a list"),
        (POOLED + 'values_env = ["CRM_UNSET_FOR_TEST"]\n', "'CRM_UNSET_FOR_TEST' names an"),
        (
            POOLED + '[tokens.other_workspace]\nvalue = "x"\nvalues_env = ["A"]\n',
            "unknown key 'tokens.other_workspace.values_env'",
        ),
        ("token_pool = -1\n" + POOLED, "token_pool = -1 must be a whole number of tokens"),
        ("token_pool = 33\n" + POOLED, "from 0 to 32"),
        ('token_pool = "4"\n' + POOLED, "token_pool = '4' must be"),
    ],
)
def test_each_mistake_of_a_token_pool_names_its_key(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(TargetFileError) as caught:
        load_target(path=write(tmp_path, text), environ={})
    assert message in str(caught.value)


def test_a_live_token_in_the_pool_is_refused_unless_allowed(tmp_path: Path) -> None:
    text = POOLED + 'values_env = ["CRM_POOL_1"]\n'
    with pytest.raises(TargetFileError, match=r"values_env\[0\] is a live workspace token"):
        load_target(path=write(tmp_path, text), environ={"CRM_POOL_1": "sk_live_x.y"})
