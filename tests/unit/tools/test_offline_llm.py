from __future__ import annotations

import asyncio

import pytest

from settings.errors import ConfigError
from tools.documents import InternalContextDocument, PromptAndContext, TextAnswer
from tools.llm.composer import ExtractiveComposer, LlmComposer
from tools.llm.router import LexicalRouter, ToolCandidate
from tools.llm.text import sentences
from tools.retrieval.analyzer import MultilingualStems, analyzer_for
from tools.streaming import ResponseEmitter


def test_issue_12_routing_stems_come_from_the_retrieval_analysers():
    stems = MultilingualStems(("en", "hu"))
    # One stem set per language; stop words of every language dropped, numbers too.
    english, hungarian = stems("Who was the captain of Eger in 1552?")
    assert (english, hungarian) == ({"captain", "eger"}, {"capt", "eger"})
    assert stems("Dobó Istvánról mesél") == (frozenset({"dobó", "istvánról", "mesél"}),
                                            frozenset({"dobó", "istv", "mesél"}))
    assert stems("Gergelynek")[1] == {analyzer_for("hu").stem("gergelyt")}



def test_issue_12_multilingual_stems_name_an_unknown_language_and_the_valid_ones():
    with pytest.raises(ConfigError, match=r"\['xx'\]; valid: \['de', 'en', 'fr', 'hu', 'ru'\]"):
        MultilingualStems(("en", "xx"))

def test_issue_12_lexical_router_joins_and_parts_words_as_snowball_does_not_by_prefix():
    router = LexicalRouter(0.5)
    candidates = [ToolCandidate("dobo", "Dobóról mesél"), ToolCandidate("maps", "Draws charts of the castle")]
    # Snowball joins what 5-letter prefixes kept apart ("dobó" / "dobór") …
    assert asyncio.run(router.select("Ki volt Dobó?", candidates)) == ["dobo"]
    # … and keeps apart what they joined ("charter" is not "chart").
    assert router.scores("Who signed the charter?", candidates)["maps"] == 0.0


def test_text_sentences_split_on_end_punctuation_and_blank_lines():
    assert sentences("One. Two!\n\nThree") == ["One.", "Two!", "Three"]


def test_lexical_router_scores_stem_overlap():
    router = LexicalRouter(0.5)
    siege = ToolCandidate("siege", "Answers questions about the siege of Eger castle")
    scores = router.scores("Who defended the castle during the siege of Eger?", [siege])
    # English view: prompt {defend, castl, dure, sieg, eger}, instruction {answer, question, sieg, eger, castl}: 3 / 5
    assert scores["siege"] == pytest.approx(0.6)


def test_lexical_router_matches_hungarian_suffixed_words():
    router = LexicalRouter(0.5)
    candidates = [ToolCandidate("character", "Dobó Istvánról mesél"), ToolCandidate("weather", "Időjárás")]
    # Hungarian view: prompt {dobó, istv}, instruction {dobó, istv, mesél}: 2 / sqrt(2·3) ≈ 0.816
    assert router.scores("Ki volt Dobó István?", candidates)["character"] == pytest.approx(2 / 6**0.5)
    assert asyncio.run(router.select("Ki volt Dobó István?", candidates)) == ["character"]


def test_lexical_router_important_words_boost():
    router = LexicalRouter(0.3)
    candidates = [ToolCandidate("graph", "entity graph neighbours")]
    assert asyncio.run(router.select("tell me more", candidates)) == []
    assert asyncio.run(router.select("tell me more", candidates, important_words=["graph"])) == ["graph"]


def test_extractive_composer_quotes_best_sentence_and_cites_source():
    docs = (TextAnswer("Dobó István was the captain of Eger. The weather was cold.", source="ch1"),)
    contexts = [PromptAndContext("q", docs, "novel")]
    emitter = ResponseEmitter()
    answer = asyncio.run(ExtractiveComposer(max_quotes=1).compose("Who was the captain of Eger?", contexts,
                                                                  user_lang="en", emitter=emitter))
    assert answer.text == "From the sources:\n> Dobó István was the captain of Eger. [1]\n\n[1] novel: ch1"
    assert answer.sources == ["novel: ch1"]
    assert emitter.text == answer.text


def test_extractive_composer_skips_internal_documents_and_says_when_nothing_is_known():
    contexts = [PromptAndContext("q", (InternalContextDocument('{"secret": 1}'),), "tool")]
    answer = asyncio.run(ExtractiveComposer().compose("q", contexts, user_lang="hu", emitter=ResponseEmitter()))
    assert answer.text == "Erről nem találtam információt a tudásbázisban."


def test_llm_composer_messages_number_the_public_contexts_only():
    contexts = [PromptAndContext("q", (TextAnswer("Eger 1552.", source="p1"), InternalContextDocument("{}")), "rag")]
    messages = LlmComposer(client=None).messages("When?", contexts, "hu")  # type: ignore[arg-type]
    assert messages[1]["content"] == "Context:\n[1] (rag: p1) Eger 1552.\n\nQuestion: When?"
    assert "(hu)" in messages[0]["content"]


def fake_embed(texts):
    # Two topics by hand: "castle/siege/fortress" words point one way, "weather/rain" the other.
    vectors = []
    for text in texts:
        lowered = text.lower()
        military = sum(word in lowered for word in ("castle", "siege", "fortress", "vár"))
        weather = sum(word in lowered for word in ("weather", "rain", "forecast"))
        vectors.append([float(military), float(weather), 0.1])
    return vectors


def test_embedding_router_uses_similarity_beyond_shared_words():
    from tools.llm.router import EmbeddingRouter

    candidates = [ToolCandidate("siege", "Answers about the siege"), ToolCandidate("weather", "Weather forecast")]
    router = EmbeddingRouter(fake_embed, min_similarity=0.9, lexical=LexicalRouter(0.9))
    # "fortress" shares no stem with "siege" but points the same way: cosine([1,0,.1],[1,0,.1]) = 1.
    assert asyncio.run(router.select("Who held the fortress?", candidates)) == ["siege"]
    assert asyncio.run(router.select("Will it rain?", candidates)) == ["weather"]


def test_embedding_router_without_sentence_transformers_says_what_to_install(monkeypatch):
    import builtins

    from tools.errors import ConfigError
    from tools.llm.router import EmbeddingRouter

    real_import = builtins.__import__

    def no_st(name, *args, **kwargs):
        if name.startswith("sentence_transformers"):
            raise ImportError("No module named 'sentence_transformers'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_st)
    with pytest.raises(ConfigError, match="pip install sentence-transformers"):
        EmbeddingRouter.from_sentence_transformers("all-MiniLM-L6-v2")
