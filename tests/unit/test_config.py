from pathlib import Path

import pytest
from typer.testing import CliRunner

from airline_agent.cli import app
from airline_agent.config import Settings, SettingsError, load_settings


def test_defaults_when_nothing_is_set() -> None:
    settings = load_settings()
    assert settings.db == "data/airline.db"
    assert settings.now == "2024-05-15T15:00:00"
    assert settings.guard is True
    assert settings.model is None


def test_flags_beat_environment_which_beats_dotenv(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text(
        "AIRLINE_AGENT_MODEL=from-dotenv\nAIRLINE_AGENT_DB=dotenv.db\nAIRLINE_AGENT_GUARD=off\n"
    )
    assert load_settings().model == "from-dotenv"
    assert load_settings().guard is False
    monkeypatch.setenv("AIRLINE_AGENT_MODEL", "from-env")
    assert load_settings().model == "from-env"
    assert load_settings().db == "dotenv.db"
    assert load_settings(model="from-flag", db=None).model == "from-flag"


def test_unprefixed_names_are_not_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MODEL", "stray")
    monkeypatch.setenv("DB", "stray.db")
    (tmp_path / ".env").write_text("AIRLINE_AGENT_DB=dotenv.db\n")
    settings = load_settings()
    assert settings.model is None
    assert settings.db == "dotenv.db"


def test_a_bad_flag_is_named_as_the_flag() -> None:
    with pytest.raises(SettingsError, match=r"^--max-tool-calls: "):
        load_settings(max_tool_calls=0)


def test_an_unusable_setting_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AIRLINE_AGENT_MAX_TOOL_CALLS", "lots")
    with pytest.raises(SettingsError, match=r"^AIRLINE_AGENT_MAX_TOOL_CALLS: .*'lots'"):
        load_settings()


def test_commands_report_a_bad_setting_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AIRLINE_AGENT_GUARD", "maybe")
    for command in (["call", "list_all_airports"], ["export"], ["chat", "--model", "m"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 2, command
        assert "AIRLINE_AGENT_GUARD" in result.output
        assert "Traceback" not in result.output


def test_fields_given_by_name_in_code_are_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASE_URL", "http://stray")
    settings = Settings(base_url="http://127.0.0.1:9/v1", api_key="sk-test", db="a.db")
    assert settings.base_url == "http://127.0.0.1:9/v1"
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == "sk-test"
    assert load_settings().base_url is None


def test_a_clock_that_is_not_a_date_time_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRLINE_AGENT_NOW", "yesterday")
    with pytest.raises(SettingsError, match=r"^AIRLINE_AGENT_NOW: .*'yesterday'"):
        load_settings()
    result = CliRunner().invoke(app, ["call", "list_all_airports"])
    assert result.exit_code == 2
    assert "AIRLINE_AGENT_NOW" in result.output


def test_the_timeout_and_the_stall_notice_are_read_and_reach_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 19 item 12: both documented in the README's configuration table."""
    from airline_agent.agent.options import LoopOptions

    monkeypatch.setenv("AIRLINE_AGENT_TIMEOUT", "120")
    monkeypatch.setenv("AIRLINE_AGENT_STALL_NOTICE", "5")
    settings = load_settings()
    assert (settings.timeout, settings.stall_notice) == (120.0, 5.0)
    assert LoopOptions.from_settings(settings).stall_notice == 5.0
    monkeypatch.setenv("AIRLINE_AGENT_STALL_NOTICE", "0")
    with pytest.raises(SettingsError, match="AIRLINE_AGENT_STALL_NOTICE"):
        load_settings()
