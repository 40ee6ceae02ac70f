from __future__ import annotations

import asyncio

import pytest

from tests.unit.tools.tooltest_helpers import SelectAll, ask, make_platform
from tools.clarification import ClarificationSession
from tools.contracts import ClarifiableContextConsumerTool, ClarifiableTool, OrchestratorActivatedTool
from tools.documents import TextAnswer, ToolExecutionResult
from tools.errors import ClarificationError, ToolExecutionError
from tools.request import ChatRequest

LOG: list[str] = []
SESSIONS: list[ClarificationSession] = []


@pytest.fixture(autouse=True)
def _clear():
    LOG.clear()
    SESSIONS.clear()


class CastleAsker(ClarifiableTool):
    name = "castle_asker"

    def execute_with_result(self, systems, prompt, lang, words, emitter, callback):
        LOG.append("castle_asker:first")
        if "Eger" in prompt:
            return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("Castle: Eger."))
        return ToolExecutionResult.as_clarification(self.name, "Which castle do you mean?", state={"asked": prompt},
                                                    options=["Eger", "Szigetvár"])

    def execute_with_clarification(self, session, systems, prompt, lang, words, emitter, callback):
        LOG.append("castle_asker:answer")
        SESSIONS.append(session)
        if session.answer.strip() == "":
            return ToolExecutionResult.as_clarification(self.name, "Please name a castle.", state=session.state)
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"Castle: {session.answer}."))


class YearAsker(ClarifiableTool):
    name = "year_asker"

    def execute_with_result(self, *args):
        LOG.append("year_asker:first")
        return ToolExecutionResult.as_clarification(self.name, "Which year?")

    async def execute_with_clarification(self, session, *args):
        LOG.append("year_asker:answer")
        SESSIONS.append(session)
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"Year: {session.answer}."))


class Later(OrchestratorActivatedTool):
    name = "later"

    def get_priority(self) -> int:
        return 3

    def execute_with_result(self, *args):
        LOG.append("later")
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("Later tool output."))


class Peer(OrchestratorActivatedTool):
    name = "peer"

    def get_priority(self) -> int:
        return 0

    def execute_with_result(self, *args):
        LOG.append("peer")
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("Peer output."))


def test_r_clar_1_question_goes_back_and_the_answer_resumes_where_it_stopped():
    platform = make_platform(CastleAsker, Later, Peer)
    first = ask(platform, "Tell me about the siege", user_id="u1")
    assert first.finish_reason == "clarification"
    assert first.content == "Which castle do you mean?"
    assert first.clarification["questions"] == [
        {"tool": "castle_asker", "question": "Which castle do you mean?", "options": ["Eger", "Szigetvár"]}]
    assert LOG == ["castle_asker:first", "peer"] or LOG == ["peer", "castle_asker:first"]  # same group, concurrent
    assert "later" not in LOG  # stopped before the next group
    LOG.clear()
    second = ask(platform, "Eger", user_id="u1", session_id=first.clarification["session_id"])
    assert LOG == ["castle_asker:answer", "later"]  # the peer's work is not redone
    assert SESSIONS[0].answer == "Eger"
    assert SESSIONS[0].state == {"asked": "Tell me about the siege"}
    assert SESSIONS[0].round == 1
    for text in ("Castle: Eger.", "Later tool output.", "Peer output."):
        assert text in second.content


def test_r_clar_1_a_tool_may_ask_again_until_the_round_limit():
    platform = make_platform(CastleAsker, max_clarification_rounds=2)
    first = ask(platform, "siege")
    second = ask(platform, "   ", session_id=first.clarification["session_id"])
    assert second.content == "Please name a castle."
    # A third question is refused: the tool counts as failed and, as nothing else answered, the request fails.
    with pytest.raises(ToolExecutionError, match="castle_asker"):
        ask(platform, "", session_id=second.clarification["session_id"])


def test_r_clar_1_several_questions_in_one_group_reach_the_user_as_one_turn():
    platform = make_platform(CastleAsker, YearAsker)
    first = ask(platform, "siege")
    assert [q["tool"] for q in first.clarification["questions"]] == ["castle_asker", "year_asker"] or [
        q["tool"] for q in first.clarification["questions"]] == ["year_asker", "castle_asker"]
    numbered = {q["tool"]: i for i, q in enumerate(first.clarification["questions"], start=1)}
    assert first.content.count("\n") == 1 and first.content.startswith("1. ")
    assert first.content.splitlines()[1].startswith("2. ")  # one question per line, numbered
    lines = sorted([(numbered["castle_asker"], "Szigetvár"), (numbered["year_asker"], "1566")])
    answer = "\n".join(f"{n}. {text}" for n, text in lines)
    second = ask(platform, answer, session_id=first.clarification["session_id"])
    by_tool = {s.tool_name: s.answer for s in SESSIONS}
    assert by_tool == {"castle_asker": "Szigetvár", "year_asker": "1566"}
    assert "Castle: Szigetvár." in second.content and "Year: 1566." in second.content


def test_r_clar_1_answers_may_be_given_per_tool():
    platform = make_platform(CastleAsker, YearAsker)
    first = ask(platform, "siege")
    ask(platform, "", session_id=first.clarification["session_id"],
        answer={"castle_asker": "Eger", "year_asker": "1552"})
    assert {s.tool_name: s.answer for s in SESSIONS} == {"castle_asker": "Eger", "year_asker": "1552"}


def test_r_clar_2_clarifiable_tool_is_never_offered_to_routing():
    router = SelectAll()
    platform = make_platform(CastleAsker, router=router)
    orchestrator = platform.container.new_orchestrator(platform.select_orchestrator(ChatRequest("q")))
    assert orchestrator.get_routable_tools(ChatRequest("q")) == []


def test_r_clar_3_domain_none_serves_every_domain_and_a_set_domain_only_its_own():
    class HuAsker(CastleAsker):
        name = "hu_asker"
        domain = "egri"

    platform = make_platform(CastleAsker, HuAsker)
    orchestrator = platform.container.new_orchestrator(platform.select_orchestrator(ChatRequest("q")))
    names = lambda domain: sorted(t.get_name() for t in orchestrator.get_orchestrated_tools(ChatRequest("q", domain=domain)))  # noqa: E731,E501
    assert names("egri") == ["castle_asker", "hu_asker"]
    assert names("war_and_peace") == ["castle_asker"]


def test_clarification_session_belongs_to_one_user_and_is_single_use():
    platform = make_platform(CastleAsker)
    first = ask(platform, "siege", user_id="alice")
    session_id = first.clarification["session_id"]
    with pytest.raises(ClarificationError, match="no open clarification session"):
        ask(platform, "Eger", user_id="mallory", session_id=session_id)
    # The failed attempt by another user did not consume alice's session.
    assert "Castle: Eger." in ask(platform, "Eger", user_id="alice", session_id=session_id).content
    with pytest.raises(ClarificationError):
        ask(platform, "Eger", user_id="alice", session_id=session_id)


def test_clarification_session_expires():
    platform = make_platform(CastleAsker, clarification_ttl_s=0.05)
    first = ask(platform, "siege")
    asyncio.run(asyncio.sleep(0.1))
    with pytest.raises(ClarificationError, match="no open|expired"):
        ask(platform, "Eger", session_id=first.clarification["session_id"])


class PlanningConsumer(ClarifiableContextConsumerTool):
    name = "planning_consumer"

    def get_priority(self) -> int:
        return 2

    def execute_with_prior_context(self, systems, prompt, lang, words, prior, emitter, callback):
        LOG.append("consumer:first:" + ",".join(prior))
        return ToolExecutionResult.as_clarification(self.name, "Short or long summary?")

    def execute_with_clarification_and_prior_context(self, session, prior, systems, prompt, lang, words, emitter,
                                                     callback):
        LOG.append("consumer:answer:" + ",".join(prior))
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set(f"{session.answer} summary."))


class Early(OrchestratorActivatedTool):
    name = "early"

    def get_priority(self) -> int:
        return 1

    def execute_with_result(self, *args):
        return ToolExecutionResult.as_guaranteed_context(self.name, TextAnswer.as_set("Early."))


def test_r_cc_5_clarifiable_consumer_resumes_with_prior_context():
    platform = make_platform(PlanningConsumer, Early)
    first = ask(platform, "summarise")
    second = ask(platform, "Short", session_id=first.clarification["session_id"])
    assert LOG == ["consumer:first:1:early", "consumer:answer:1:early"]
    assert "Short summary." in second.content
