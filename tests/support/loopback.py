"""OpenAI backends for the loopback servers (Chat Completions, or with `api="responses"`
the Responses API), closed after each test.

A backend's HTTP client belongs to the event loop of the test that made it, so it is
closed inside that loop: a module that makes backends with `loopback_backend` marks its
tests `pytest.mark.usefixtures("closing_loopback_backends")` (tests/support/fixtures.py).
"""

from __future__ import annotations

from airline_agent.agent.openai_backends import OpenAIBackend, ResponsesBackend
from airline_agent.choices import Api

_open: list[OpenAIBackend] = []


def loopback_backend(
    base_url: str,
    *,
    model: str = "gpt-4o-mini",
    timeout: float = 10.0,
    api_key: str | None = "k",
    api: Api = "chat",
) -> OpenAIBackend:
    """A backend for `base_url` (None as the key: what a local server is sent without one)."""
    kind = ResponsesBackend if api == "responses" else OpenAIBackend
    backend = kind(model=model, base_url=base_url, api_key=api_key, timeout=timeout)
    _open.append(backend)
    return backend


async def close_loopback_backends() -> None:
    while _open:
        await _open.pop().aclose()
