from __future__ import annotations

import pytest
from pydantic import BaseModel

from tools.documents import (
    InternalContextDocument,
    PromptAndContext,
    ResultKind,
    TextAnswer,
    ToolExecutionResult,
    public_documents,
)


class Character(BaseModel):
    name: str
    mentions: int


def test_unique_text_document_deduplicates_by_content():
    docs = TextAnswer.as_set("Eger", "Eger", source="a") | TextAnswer.as_set("Eger", source="b")
    assert docs == {TextAnswer("Eger")}
    assert len(docs) == 1


def test_unique_text_document_types_are_distinct_addressees():
    # Same text, different addressee: an internal copy must not swallow the public one (R-INT-1).
    docs = TextAnswer.as_set("x") | InternalContextDocument.as_set("x")
    assert len(docs) == 2
    assert public_documents(docs) == [TextAnswer("x")]


def test_r_int_3_result_mixes_text_and_internal_documents_and_receiver_reads_json_back():
    payload = InternalContextDocument.from_model(Character(name="Dobó István", mentions=42))
    result = ToolExecutionResult.as_guaranteed_context(
        "entity", TextAnswer.as_set("Dobó István defended Eger.") | {payload, payload}
    )
    assert result.kind is ResultKind.GUARANTEED_CONTEXT
    assert len(result.documents) == 2
    internal = [d for d in result.documents if d.is_internal]
    assert internal[0].to_model(Character) == Character(name="Dobó István", mentions=42)
    assert InternalContextDocument.from_model({"b": 1, "a": [2]}).to_json() == {"a": [2], "b": 1}


def test_prompt_and_context_public_drops_internal_documents():
    ctx = PromptAndContext("q", (InternalContextDocument("{}"), TextAnswer("t")), "tool", "1.2")
    assert ctx.completion_key == "1.2:tool"
    assert ctx.public() == PromptAndContext("q", (TextAnswer("t"),), "tool", "1.2")
    assert PromptAndContext("q", (InternalContextDocument("{}"),), "tool").public() is None


def test_tool_execution_result_outcomes():
    assert ToolExecutionResult.nothing("t").kind is ResultKind.NOTHING
    assert ToolExecutionResult.as_direct_answer("t", "42").answer == "42"
    asked = ToolExecutionResult.as_clarification("t", "Which castle?", state={"step": 1}, options=["Eger", "Buda"])
    assert asked.question is not None
    assert (asked.question.text, asked.question.state, asked.question.options) == (
        "Which castle?", {"step": 1}, ("Eger", "Buda"))
    assert not ToolExecutionResult.as_optional_context("t", []).has_context


def test_internal_document_to_model_refuses_non_models():
    with pytest.raises(TypeError, match="pydantic"):
        InternalContextDocument("{}").to_model(dict)
