"""The `openai` package's own types of a request body, as pydantic checks them: what an
edited body or tool call at the debugger is held to (agent/edits.py says what it gets
wrong, one line per field). Each API's checks are built the first time one of its bodies
is edited."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionFunctionToolParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolChoiceOptionParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
    completion_create_params,
)
from openai.types.responses import (
    EasyInputMessageParam,
    FunctionToolParam,
    ResponseFunctionToolCallParam,
    ResponseOutputMessageParam,
    ResponseReasoningItemParam,
    ToolChoiceFunctionParam,
    ToolChoiceOptions,
    response_create_params,
    response_input_item_param,
)
from pydantic import TypeAdapter, ValidationError


@dataclass(frozen=True)
class ChatTypes:
    """A Chat Completions body, its messages by role, a tool and a tool choice."""

    not_streaming: TypeAdapter[object]
    streaming: TypeAdapter[object]
    messages: dict[str, TypeAdapter[object]]  # by role
    tool: TypeAdapter[object]
    tool_choice: TypeAdapter[object]


@dataclass(frozen=True)
class ResponsesTypes:
    """A Responses body, its input items by type, a function tool and a tool choice."""

    not_streaming: TypeAdapter[object]
    streaming: TypeAdapter[object]
    message: TypeAdapter[object]
    output_message: TypeAdapter[object]
    items: dict[str, TypeAdapter[object]]  # by type: the calls, their outputs, reasoning
    tool: TypeAdapter[object]
    tool_choice: TypeAdapter[object]


class WireTypes:
    """Both APIs' checks, each built when first used (building one takes a moment)."""

    invalid = ValidationError  # what the checks raise

    @cached_property
    def chat(self) -> ChatTypes:
        return ChatTypes(
            TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming),
            TypeAdapter(completion_create_params.CompletionCreateParamsStreaming),
            {
                "system": TypeAdapter(ChatCompletionSystemMessageParam),
                "user": TypeAdapter(ChatCompletionUserMessageParam),
                "assistant": TypeAdapter(ChatCompletionAssistantMessageParam),
                "tool": TypeAdapter(ChatCompletionToolMessageParam),
            },
            TypeAdapter(ChatCompletionFunctionToolParam),
            TypeAdapter(ChatCompletionToolChoiceOptionParam),
        )

    @cached_property
    def responses(self) -> ResponsesTypes:
        return ResponsesTypes(
            TypeAdapter(response_create_params.ResponseCreateParamsNonStreaming),
            TypeAdapter(response_create_params.ResponseCreateParamsStreaming),
            TypeAdapter(EasyInputMessageParam),
            TypeAdapter(ResponseOutputMessageParam),
            {
                "function_call": TypeAdapter(ResponseFunctionToolCallParam),
                "function_call_output": TypeAdapter(response_input_item_param.FunctionCallOutput),
                "reasoning": TypeAdapter(ResponseReasoningItemParam),
            },
            TypeAdapter(FunctionToolParam),
            TypeAdapter(ToolChoiceOptions | ToolChoiceFunctionParam),
        )
