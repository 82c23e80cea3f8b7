#!/usr/bin/env python3
"""Benchmark the read path: recall latency over HTTP on one namespace of N nodes (default 100,000).

Starts its own Neo4j (2 GB heap, 2 GB page cache) and Redis on separate ports unless
--neo4j-uri/--redis-url are given (scripts/harness.py), then:

1. Builds a synthetic conversation world, deterministically from --seed: eight speakers (five
   writing mostly English, three mostly Chinese) in pairs, sessions of 16-24 turns spread over the
   last ~12 months, each turn drawn from the speaker's own pool of utterances about daily life, work
   projects, travel, purchases and facts that change (car, home, employer, favourites), plus chit-chat.
2. Turns it into the graph the write path (app/memory/ingest.py) would produce, with the same
   extractors, ids and properties (app/memory/records.py): Dialogue per turn, Episode per session
   (HIERARCHY, extractive summary, TEMPORAL chain of sessions), Person per speaker (REFERENCE from
   each turn), Knowledge facts with REFERENCE to their turns and to Person/Concept entities (a new
   value supersedes the one in force; a repeated one adds a source turn), Experience events with
   TEMPORAL chains per subject, and SEMANTIC edges between a share of the nodes whose text repeats
   an earlier node's. Inference rules are not run. Nodes are written as of their turn's time.
   Loaded with the bulk queries of cypher/bench.cypher, in batches, until the namespace holds N nodes.
3. Embeds each distinct text once (cached in data/bench-recall/embeddings.npz across runs; the world
   keeps fewer than ~20k distinct texts at any size) and stores the vectors of the node types the
   write path embeds: a repeated text reuses its vector; an Experience is embedded without its date
   ("speaker: sentence") and an Episode gets the mean of its summary turns' vectors.
4. Fills the Redis hot window with the newest turns (as the turns API would have left it), and
   builds the vector index as the `hippograph.optimize_vectors` job of a running service would.
5. Serves the API (uvicorn in this process, no background jobs, so no decay or flush lands in the
   measurement) and posts, from a separate client process (a client in the server's process would
   share its interpreter lock), --warmup (default 1,000: Neo4j's JIT compiler keeps speeding the
   read queries up over the first thousand or so; 20 warm-up queries measured p50 ~30 % higher),
   then --queries recall requests one at a time:
   facts ("What car does Alice drive?"), entity names, time expressions ("last week", "上周"),
   topics, about a quarter in Chinese. Reports client wall time p50/p95/p99, the server's hot/cold
   split, the nodes spreading activation expanded and the seeds, as Markdown tables.

Vectors are kept in data/bench-recall/vectors (not the harness's temporary folder), so --reuse can
skip loading: it reuses the namespace when the last complete load was of the same size and seed.

    .venv/bin/python scripts/bench_recall.py [--nodes 100000] [--queries 300] [--reuse] [--decay] [--keep]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import random
import resource
import subprocess
import sys
import time
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from string import Formatter
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
import numpy as np  # noqa: E402

from app.domain.importance import ImportanceRules  # noqa: E402
from app.domain.inputs import namespace_term, stable_digest  # noqa: E402
from app.domain.model import Importance, NodeType, RelType, Source  # noqa: E402
from app.domain.summarize import extractive_summary, sentences  # noqa: E402
from app.domain.turns import Turn, concept_id, dialogue_id, episode_id, person_id  # noqa: E402
from app.domain.vector_pair import same_half  # noqa: E402
from app.extract.facts import extract_facts  # noqa: E402
from app.extract.names import normalize_name  # noqa: E402
from app.extract.timeexpr import find_time_expressions  # noqa: E402
from app.extract.types import EntityKind, FactMention, supersedes  # noqa: E402
from app.memory.hot_window import DEFAULT_MAX_TURNS  # noqa: E402
from app.memory.namespaces import DEFAULT_CAPACITY  # noqa: E402
from app.memory.records import link_row, node_properties  # noqa: E402
from app.memory.turn_spans import sentence_around  # noqa: E402  (the write path's own sentence picker)
from app.recall.query import parse_query  # noqa: E402
from app.recall.request import RecallRequest  # noqa: E402
from app.runtime import Runtime  # noqa: E402
from app.stores.queries.bench_queries import BenchQueries  # noqa: E402
from app.stores.vectors import VectorRecord  # noqa: E402
from scripts.harness import add_engine_arguments, fresh_namespace, local_engines, served_api  # noqa: E402

BENCH_NEO4J_PORT = 17692
BENCH_REDIS_PORT = 16392
NAMESPACE = "bench-recall"
HOME = REPO / "data" / "bench-recall"
VECTOR_DIR = HOME / "vectors"
EMBEDDING_CACHE = HOME / "embeddings.npz"
MARKER = HOME / "loaded.json"  # what the last complete load holds, for --reuse

NODE_BATCH = 5_000
EDGE_BATCH = 10_000
VECTOR_BATCH = 2_000
EMBED_CHUNK = 1_024
SPAN = timedelta(days=355)  # sessions spread over this span, ending about now
NODES_PER_SESSION = 32.0  # measured for this world; spaces the sessions so the span fits N nodes
TWIN_SHARE = 0.25  # share of nodes repeating an earlier node's text that get a SEMANTIC edge to it
TARGETS = {"e2e_p50": 25.0, "e2e_p95": 50.0, "hot_p95": 20.0}  # ms, at 100k nodes

# -- the world's vocabulary --------------------------------------------------------------------------

# speaker -> share of their turns written in Chinese
SPEAKERS = {
    "Alice": 0.05,
    "Bob": 0.05,
    "Carol": 0.1,
    "David": 0.05,
    "Emma": 0.1,
    "王伟": 0.85,
    "李娜": 0.8,
    "张敏": 0.75,
}
PAIRS = [("Alice", "Bob"), ("Carol", "David"), ("Emma", "Alice"), ("王伟", "李娜"), ("张敏", "王伟"), ("Bob", "李娜"),
         ("Carol", "张敏"), ("David", "Emma")]  # fmt: skip

# key: values (a template's {key} takes one of them)
_VOCAB = """
car: Model Y|Civic|Golf|Tesla Model 3|Prius|Mazda 3|Volvo XC40|BMW i3|Corolla
zcar: 特斯拉|比亚迪汉|蔚来ES6|小鹏P7|大众帕萨特|丰田凯美瑞|理想L7
home: Berlin|Munich|Paris|Seattle|Toronto|Boston|Dublin|Vienna|Amsterdam|Denver
zhome: 北京|上海|成都|杭州|深圳|广州|南京|苏州
trip: Tokyo|Kyoto|Barcelona|Prague|Oslo|Sydney|Rome|Lisbon|Reykjavik|Hanoi|Seoul|Istanbul|Cape Town|Lima|Vancouver
ztrip: 西安|重庆|厦门|青岛|丽江|三亚|桂林|拉萨|大理|哈尔滨|昆明|香港
company: Acme|Globex|Initech|Umbrella Labs|Hooli|Stark Industries|Wayne Enterprises|Soylent|Cyberdyne|Vandelay
zcompany: 阿里巴巴|腾讯|字节跳动|华为|百度|美团|京东|小米
job: teacher|nurse|software engineer|data scientist|architect|product manager|designer|accountant|chef|pharmacist
zjob: 工程师|医生|老师|设计师|产品经理|会计师|律师|研究员
food: sushi|pasta|dumplings|ramen|tacos|pho|curry|paella|falafel|pizza|bibimbap|croissants
zfood: 饺子|火锅|小笼包|烤鸭|麻辣烫|兰州拉面|肠粉|煎饼果子|宫保鸡丁|烧烤
color: blue|green|red|yellow|purple|orange|teal|black
zcolor: 蓝色|绿色|红色|黄色|紫色|橙色|白色
book: Dune|Middlemarch|The Hobbit|Beloved|Neuromancer|Persuasion|Solaris|Ulysses
band: Radiohead|ABBA|Daft Punk|Coldplay|The Beatles|Queen|Massive Attack|Portishead
pet: dog|cat|parrot|rabbit|hamster
petname: Rex|Luna|Milo|Bella|Charlie|Coco|Max|Nala
zpet: 猫|狗|兔子|鹦鹉
zpetname: 咪咪|旺财|豆豆|球球|花花|毛毛
project: Apollo|Hermes|Zeus|Atlas|Orion|Phoenix|Gemini|Nova|Titan|Mercury|Aurora|Vega
colleague: Priya|Marco|Sven|Yuki|Fatima|Liam|Olga|Diego|Hana|Kofi|Ines
zcolleague: 小王|老李|陈静|刘洋|赵磊|孙悦|周杰|吴婷
relative: sister Anna|brother Tom|mother Maria|friend Jake|cousin Nina|father Peter|friend Sofia|aunt Helen
zrelative: 妹妹小美|哥哥大伟|妈妈王芳|朋友阿强|表姐丽丽
item: laptop|bike|camera|coffee machine|phone|tent|guitar|desk chair|monitor|headphones|e-reader|blender
zitem: 笔记本电脑|自行车|相机|咖啡机|手机|吉他|耳机|扫地机器人
price: 49|120|300|450|899|1200|2400
shop: Amazon|IKEA|Best Buy|eBay|Decathlon|a small shop downtown
zshop: 淘宝|京东|拼多多|宜家|苏宁
weekday: Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday
zweekday: 一|二|三|四|五|六|日
ago: yesterday|two days ago|three days ago|last week|two weeks ago|last month|last weekend
zago: 昨天|前天|三天前|上周|两周前|上个月|上周末
month: January|February|March|April|May|June|July|August|September|October|November|December
park: the park|the river trail|the botanical garden|the old harbour
race: 5k|10k|half marathon|marathon
bug: login|memory leak|timezone|cache|race condition|payment
adj: great|noisy|tiny but clean|overpriced|lovely|fine
zadj: 干净|吵|贵|舒服|小|方便
"""
VOCAB = {key: values.split("|") for key, values in (line.split(": ", 1) for line in _VOCAB.strip().splitlines())}
# How many values of a vocabulary each speaker's life uses (the rest: all of them). Few values for
# the facts that change, so they flip between a handful of values and are often said again.
LIFE_VALUES = {"car": 4, "zcar": 4, "home": 4, "zhome": 4, "company": 3, "zcompany": 3, "job": 3, "zjob": 3,
               "color": 3, "zcolor": 3, "book": 3, "band": 3, "pet": 1, "petname": 2, "zpet": 1, "zpetname": 2,
               "food": 6, "zfood": 6, "trip": 8, "ztrip": 8, "project": 4, "colleague": 5, "zcolleague": 5,
               "relative": 3, "zrelative": 3, "item": 6, "zitem": 6}  # fmt: skip

# topic language: template
_TEMPLATES = """
life en: My car is a {car}.
life en: I live in {home} now.
life en: I moved to {home} {ago}.
life en: I work at {company} as a {job}.
life en: I started a new job at {company}.
life en: I'm from {home}.
life en: I'm a {job}.
life en: My favorite color is {color}.
life en: My favorite book is {book}.
life en: My favorite band is {band}.
life en: My {relative} lives in {home}.
life en: My {relative} works at {company}.
life en: I'm thinking about selling my {car}.
life zh: 我的车是{zcar}。
life zh: 我现在住在{zhome}。
life zh: 我{zago}搬到了{zhome}。
life zh: 我在{zcompany}工作。
life zh: 我是一名{zjob}。
life zh: 我最喜欢的颜色是{zcolor}。
life zh: 我{zrelative}住在{zhome}。
daily en: I had {food} for dinner.
daily en: My favorite food is {food}.
daily en: I really like {food}, especially on weekends.
daily en: I don't like {food}.
daily en: I went jogging in {park} this morning.
daily en: I have a {pet} named {petname}.
daily en: My {pet} {petname} was sick {ago}, but she's fine now.
daily en: I'm cooking {food} for my {relative}.
daily en: Remember that my {relative} visits next {weekday}.
daily en: I ran a {race} race in {home} {ago}.
daily en: I slept badly, the neighbours had a party until 3am.
daily zh: 我喜欢吃{zfood}。
daily zh: 我们吃了{zfood}，很好吃。
daily zh: 我最喜欢的食物是{zfood}。
daily zh: 我养了一只{zpet}，叫{zpetname}。
daily zh: {zago}我的{zpet}{zpetname}生病了。
daily zh: 天气不错，我去公园散步了。
daily zh: 一定要记得下周{zweekday}给{zrelative}打电话。
work en: The {project} deadline moved to next {weekday}.
work en: I'm reviewing the {project} design doc with {colleague}.
work en: The {project} meeting went fine, we agreed to ship soon.
work en: Can you remind me what we discussed about the {project} project?
work en: {colleague} joined the {project} team {ago}.
work en: We fixed the {bug} bug in {project} {ago}.
work en: {colleague} and I presented the {project} roadmap to the board.
work en: I must finish the {project} report soon.
work en: I work at {company} on the {project} team.
work en: The {project} launch slipped because of the {bug} issue.
work zh: {project}项目的截止日期推迟到下周{zweekday}了。
work zh: 我和{zcolleague}在看{project}的设计文档。
work zh: {zago}我们讨论了{project}项目的进度。
work zh: {zcolleague}加入了{project}团队。
work zh: 我在{zcompany}做{project}项目。
work zh: 我们{zago}修好了{project}里的一个bug。
travel en: I went to {trip} last {weekday}.
travel en: I'm flying to {trip} next month for a conference.
travel en: I visited {trip} in {month}.
travel en: The hotel in {trip} was {adj}.
travel en: We are planning a trip to {trip} with my {relative}.
travel en: I love {trip}, the food there is amazing.
travel zh: {zago}我去了{ztrip}。
travel zh: 下周{zweekday}我要去{ztrip}出差。
travel zh: {ztrip}的酒店很{zadj}。
travel zh: 我们打算和{zrelative}一起去{ztrip}旅行。
purchase en: I bought a new {item} for {price} dollars {ago}.
purchase en: I ordered a {item} from {shop}.
purchase en: My car is a {car}, I bought it used.
purchase en: The {item} I bought from {shop} broke after a week.
purchase en: I returned the {item} to {shop}.
purchase zh: 我{zago}在{zshop}买了一台{zitem}。
purchase zh: 我花了{price}块买了一个新的{zitem}。
purchase zh: {zshop}上买的{zitem}坏了。
chat en: Thanks, that sounds good!
chat en: Haha, that's hilarious.
chat en: How was your weekend?
chat en: Sure, let's talk tomorrow.
chat en: Good morning!
chat en: I'm a bit tired.
chat en: That makes sense.
chat en: Sounds like a plan.
chat en: Oh no, sorry to hear that.
chat en: Congrats, that's great news!
chat en: What do you think?
chat en: Let me check and get back to you.
chat zh: 好的，谢谢！
chat zh: 哈哈，太好笑了。
chat zh: 周末过得怎么样？
chat zh: 明天再聊吧。
chat zh: 早上好！
chat zh: 有点累。
chat zh: 有道理。
chat zh: 好主意。
chat zh: 真遗憾。
chat zh: 恭喜恭喜！
"""
TEMPLATES: dict[str, dict[str, list[str]]] = {}
for _line in _TEMPLATES.strip().splitlines():
    _where, _template = _line.split(": ", 1)
    _topic, _lang = _where.split()
    TEMPLATES.setdefault(_topic, {}).setdefault(_lang, []).append(_template)
# Distinct utterances per speaker and topic (the pools bound the distinct texts to embed).
POOL_SIZES = {"life": 120, "daily": 260, "work": 300, "travel": 220, "purchase": 200}
TOPICS = list(POOL_SIZES)
TOPIC_WEIGHTS = [0.3, 0.2, 0.2, 0.15, 0.15]  # how often each is a session's subject


@dataclass(frozen=True)
class Session:
    session_id: str
    turns: list[Turn]


class World:
    """Speakers with their own vocabulary and utterance pools, and an endless stream of sessions."""

    def __init__(self, seed: int, nodes: int, start: datetime) -> None:
        self.seed = seed
        self.start = start
        self.slot = SPAN / max(1.0, nodes / NODES_PER_SESSION)
        self.life: dict[str, dict[str, list[str]]] = {}
        self.pools: dict[str, dict[str, list[str]]] = {}
        for speaker, zh_share in SPEAKERS.items():
            rng = random.Random(f"{seed}:{speaker}")
            life = {key: rng.sample(values, min(len(values), LIFE_VALUES.get(key, len(values))))
                    for key, values in VOCAB.items()}  # fmt: skip
            self.life[speaker] = life
            self.pools[speaker] = {topic: self._pool(rng, life, topic, zh_share) for topic in TOPICS}
            # chit-chat: all of the speaker's main language, some of the other
            self.pools[speaker]["chat"] = [
                text
                for lang, texts in TEMPLATES["chat"].items()
                for text in texts
                if (lang == "zh") == (zh_share > 0.5) or rng.random() < 0.3
            ]

    @staticmethod
    def _pool(rng: random.Random, life: dict[str, list[str]], topic: str, zh_share: float) -> list[str]:
        pool: dict[str, None] = {}
        for _ in range(POOL_SIZES[topic] * 20):
            if len(pool) >= POOL_SIZES[topic]:
                break
            template = rng.choice(TEMPLATES[topic]["zh" if rng.random() < zh_share else "en"])
            fields = dict.fromkeys(name for _, name, _, _ in Formatter().parse(template) if name)
            pool[template.format(**{name: rng.choice(life[name]) for name in fields})] = None
        return list(pool)

    def sessions(self) -> Iterator[Session]:
        rng = random.Random(self.seed)
        at = self.start
        for index in itertools.count():
            pair = PAIRS[rng.randrange(len(PAIRS))]
            if rng.random() < 0.5:
                pair = (pair[1], pair[0])
            topic = rng.choices(TOPICS, TOPIC_WEIGHTS)[0]
            session_id = f"session-{index:06d}"
            at = max(at, self.start + self.slot * index + self.slot * 0.5 * rng.random())
            turns = []
            for number in range(rng.randint(16, 24)):
                speaker = pair[number % 2]
                roll = rng.random()
                pool = "chat" if roll < 0.25 else topic if roll < 0.7 else rng.choices(TOPICS, TOPIC_WEIGHTS)[0]
                text = rng.choice(self.pools[speaker][pool])
                turns.append(Turn(session_id, f"D{index}:{number + 1}", speaker, text, at))
                at += timedelta(seconds=rng.randint(5, 40))
            yield Session(session_id, turns)
            at += timedelta(minutes=1)


# -- the graph the write path would build ----------------------------------------------------------


class GraphBuilder:
    """Node and relationship rows for the bulk loaders, as app/memory/ingest.py would write them for
    the same turns (ingested as they happen). Facts stay in memory: a later turn can restate or
    supersede them after they were loaded, and `fact_updates` carries those changes."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(f"{seed}:semantic")
        self.importance = ImportanceRules.load()
        self.nodes: list[dict[str, Any]] = []
        self.edges: list[dict[str, Any]] = []
        self.node_counts: Counter[str] = Counter()
        self.edge_counts: Counter[str] = Counter()
        self.sessions = 0
        self.seq = 0
        self.entities: set[str] = set()
        self.in_force: dict[tuple[str, ...], str] = {}  # (subject_key, slot[, value_key]) -> fact id
        self.facts: dict[str, dict[str, Any]] = {}  # fact id -> properties (kept up to date)
        self.changed_facts: set[str] = set()
        self.events: list[tuple[str, datetime, str, datetime]] = []  # subject_key, event_time, id, created
        self.texts: dict[str, int] = {}  # distinct texts to embed -> index
        self.vectors: dict[str, tuple[str, tuple[int, ...]]] = {}  # node id -> (type, text indexes)
        self.last_with_text: dict[int, str] = {}
        self.previous_episode: str | None = None
        self.hot: deque[tuple[Turn, str]] = deque(maxlen=DEFAULT_MAX_TURNS)
        self._facts_of: dict[tuple[str, str], list[FactMention]] = {}
        self._timed: dict[str, bool] = {}
        self._levels: dict[str, Importance] = {}

    @property
    def total(self) -> int:
        return sum(self.node_counts.values())

    def detect(self, text: str) -> Importance:
        if text not in self._levels:
            self._levels[text] = self.importance.detect(text)
        return self._levels[text]

    def node(self, node_type: NodeType, node_id: str, properties: dict[str, Any]) -> None:
        self.nodes.append({"type": node_type.value, "id": node_id, "properties": properties})
        self.node_counts[node_type.value] += 1

    def edge(self, rel_type: RelType, source: str, target: str, at: datetime, weight: float | None = None) -> None:
        self.edges.append(link_row(rel_type, source, target, weight, at))
        self.edge_counts[rel_type.value] += 1

    def embed(self, node_type: NodeType, node_id: str, *texts: str, at: datetime) -> None:
        """The node's vector is the (mean) embedding of `texts`; a node repeating an earlier node's
        text may get a SEMANTIC edge to it (cosine 1.0, what the indexer would find)."""
        indexes = tuple(self.texts.setdefault(text, len(self.texts)) for text in texts)
        self.vectors[node_id] = (node_type.value, indexes)
        if len(indexes) == 1:
            twin = self.last_with_text.get(indexes[0])
            if twin is not None and twin != node_id and self.rng.random() < TWIN_SHARE:
                self.edge(RelType.SEMANTIC, node_id, twin, at, 1.0)
            self.last_with_text[indexes[0]] = node_id

    def add_session(self, session: Session) -> None:
        turns = session.turns
        self.sessions += 1
        episode = episode_id(session.session_id)
        lines: list[str] = []
        previous: str | None = None
        for turn in turns:
            self.seq += 1
            speaker_key = normalize_name(turn.speaker) or turn.speaker
            speaker = person_id(speaker_key)
            at = turn.timestamp
            if speaker not in self.entities:
                self.entities.add(speaker)
                self.node(NodeType.PERSON, speaker, node_properties(
                    label=turn.speaker, content=f"{turn.speaker}, a participant in the conversation",
                    importance=Importance.IDENTITY, now=at, source=Source.USER_STATED, name_key=speaker_key,
                ))  # fmt: skip
            dialogue = dialogue_id(turn.session_id, turn.turn_id)
            self.node(NodeType.DIALOGUE, dialogue, node_properties(
                label=f"{turn.speaker}: {turn.text[:80]}", content=turn.text, importance=self.detect(turn.text),
                now=at, source=Source.USER_STATED, source_turn_ids=[turn.turn_id], speaker=turn.speaker,
                session_id=turn.session_id, turn_id=turn.turn_id, timestamp=at, seq=self.seq,
            ))  # fmt: skip
            line = f"{turn.speaker}: {turn.text}"
            lines.append(line)
            self.edge(RelType.HIERARCHY, episode, dialogue, at)
            self.edge(RelType.REFERENCE, dialogue, speaker, at, 1.0)
            if previous:
                self.edge(RelType.TEMPORAL, previous, dialogue, at)
            previous = dialogue
            self.embed(NodeType.DIALOGUE, dialogue, line, at=at)
            self.hot.append((turn, dialogue))
            self._facts(turn, dialogue)
            self._events(turn, dialogue, speaker_key)
        first, last = turns[0].timestamp, turns[-1].timestamp
        content = extractive_summary(lines, 3)
        properties = node_properties(
            label=f"Session {session.session_id}", content=content or f"Session {session.session_id}",
            summary=extractive_summary(lines, 1, max_chars=150), importance=Importance.NORMAL, now=first,
            source=Source.AGENT, source_turn_ids=[t.turn_id for t in turns], session_id=session.session_id,
            started_at=first, ended_at=last,
        )  # fmt: skip
        self.node(NodeType.EPISODE, episode, properties | {"updated_at": last})
        if self.previous_episode:
            self.edge(RelType.TEMPORAL, self.previous_episode, episode, first)
        self.previous_episode = episode
        # The summary's embedding, approximated by the mean of the turns it quotes.
        summary = sentences(content)
        quoted = [line for line in lines if any(s in line for s in summary)] or lines
        self.embed(NodeType.EPISODE, episode, *dict.fromkeys(quoted), at=last)

    def _facts(self, turn: Turn, dialogue: str) -> None:
        key = (turn.text, turn.speaker)
        if key not in self._facts_of:
            self._facts_of[key] = extract_facts(turn.text, turn.speaker)
        facts = self._facts_of[key]
        if not facts:
            return
        times = self._times(turn)
        if len(times) == 1:
            facts = [replace(f, event_time=f.event_time or times[0].start) for f in facts]
        for fact in facts:
            fact_id, created = self._fact(turn, fact, dialogue)
            if created:
                for entity_id, entity_type, properties in self._entities(turn, fact):
                    if entity_id not in self.entities:
                        self.entities.add(entity_id)
                        self.node(entity_type, entity_id, properties)
                    self.edge(RelType.REFERENCE, fact_id, entity_id, turn.timestamp, 1.0)

    def _fact(self, turn: Turn, fact: FactMention, dialogue: str) -> tuple[str, bool]:
        at = turn.timestamp
        subject_key, value_key = normalize_name(fact.subject), normalize_name(fact.value)
        sentence = sentence_around(turn.text, fact.span)
        content = f"{fact.subject} {fact.slot.replace('_', ' ')}: {fact.value}. “{sentence}”"
        slot_key = (subject_key, fact.slot) if supersedes(fact.slot) else (subject_key, fact.slot, value_key)
        current = self.in_force.get(slot_key)
        if current and self.facts[current]["value_key"] == value_key:  # said again: one more source
            stored = self.facts[current]
            if turn.turn_id not in stored["source_turn_ids"]:
                stored["source_turn_ids"].append(turn.turn_id)
                self.changed_facts.add(current)
                self.edge(RelType.REFERENCE, current, dialogue, at, 1.0)
            self.embed(NodeType.KNOWLEDGE, current, content, at=at)
            return current, False
        fact_id = f"knowledge:{stable_digest(subject_key, fact.slot, value_key, turn.key)}"
        properties = node_properties(
            label=f"{fact.subject} {fact.slot}", content=content,
            importance=self.detect(sentence).raised_to(Importance.FACT), now=at, source=Source.USER_STATED,
            summary=f"{fact.subject} {fact.slot.replace('_', ' ')}: {fact.value}"[:150], confidence=fact.confidence,
            source_turn_ids=[turn.turn_id], subject=fact.subject, subject_key=subject_key, slot=fact.slot,
            value=fact.value, value_key=value_key, valid_from=at, event_time=fact.event_time,
            session_id=turn.session_id,
        )  # fmt: skip
        if current:  # a new value ends the old one
            self.facts[current] |= {"superseded_by": fact_id, "valid_to": at, "updated_at": at}
            self.changed_facts.add(current)
        self.in_force[slot_key] = fact_id
        self.facts[fact_id] = properties
        self.node(NodeType.KNOWLEDGE, fact_id, properties)
        self.edge(RelType.REFERENCE, fact_id, dialogue, at, 1.0)
        self.embed(NodeType.KNOWLEDGE, fact_id, content, at=at)
        return fact_id, True

    def _entities(self, turn: Turn, fact: FactMention) -> Iterator[tuple[str, NodeType, dict[str, Any]]]:
        at = turn.timestamp
        subject_key = normalize_name(fact.subject)
        yield person_id(subject_key), NodeType.PERSON, node_properties(
            label=fact.subject, content=fact.subject, importance=Importance.IDENTITY, now=at,
            source=Source.USER_STATED, name_key=subject_key,
        )  # fmt: skip
        for entity in fact.entities:
            if entity.normalized == subject_key:
                continue
            is_person = entity.kind == EntityKind.PERSON
            node_type = NodeType.PERSON if is_person else NodeType.CONCEPT
            yield (person_id if is_person else concept_id)(entity.normalized), node_type, node_properties(
                label=entity.name, content=f"{entity.name} ({entity.kind.value})", importance=Importance.NORMAL,
                now=at, source=Source.USER_STATED, name_key=entity.normalized, entity_kind=entity.kind.value,
            )  # fmt: skip

    def _times(self, turn: Turn) -> list[Any]:
        if self._timed.get(turn.text) is False:
            return []
        times = find_time_expressions(turn.text, turn.timestamp)
        self._timed[turn.text] = bool(times)
        return times

    def _events(self, turn: Turn, dialogue: str, speaker_key: str) -> None:
        at = turn.timestamp
        for mention in self._times(turn):
            sentence = sentence_around(turn.text, mention.span)
            event = f"experience:{stable_digest(turn.key, str(mention.span[0]), str(mention.span[1]))}"
            self.node(NodeType.EXPERIENCE, event, node_properties(
                label=f"{turn.speaker}, {mention.start.date().isoformat()}: {sentence[:80]}", content=sentence,
                importance=self.detect(sentence), now=at, source=Source.USER_STATED, source_turn_ids=[turn.turn_id],
                subject=turn.speaker, subject_key=speaker_key, event_time=mention.start, event_end=mention.end,
                time_text=mention.text, time_granularity=mention.granularity.value, session_id=turn.session_id,
            ))  # fmt: skip
            self.edge(RelType.REFERENCE, event, dialogue, at, 1.0)
            self.events.append((speaker_key, mention.start, event, at))
            self.embed(NodeType.EXPERIENCE, event, f"{turn.speaker}: {sentence[:80]}", at=at)

    def event_chains(self) -> None:
        """Each subject's events in time order (ingest.chain_events, as it stands after the last turn)."""
        by_subject: dict[str, list[tuple[datetime, str, datetime]]] = {}
        for subject, event_time, event, created in self.events:
            by_subject.setdefault(subject, []).append((event_time, event, created))
        for events in by_subject.values():
            events.sort()
            for (_, a, a_at), (_, b, b_at) in zip(events, events[1:], strict=False):
                self.edge(RelType.TEMPORAL, a, b, max(a_at, b_at))

    def fact_updates(self) -> list[dict[str, Any]]:
        keys = ("source_turn_ids", "superseded_by", "valid_to", "updated_at")
        return [{"id": fact_id, "properties": {k: self.facts[fact_id][k] for k in keys if k in self.facts[fact_id]}}
                for fact_id in sorted(self.changed_facts)]  # fmt: skip


# -- loading ---------------------------------------------------------------------------------------


class Clock:
    """Seconds spent per step, summed over its occurrences."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()

    @contextmanager
    def step(self, label: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[label] += time.perf_counter() - start


def chunks(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for offset in range(0, len(rows), size):
        yield rows[offset : offset + size]


def load_graph(runtime: Runtime, world: World, nodes: int, clock: Clock) -> GraphBuilder:
    builder = GraphBuilder(world.seed)
    bench = BenchQueries(runtime.graph)
    term = namespace_term(NAMESPACE)

    def flush() -> None:
        for part in chunks(builder.nodes, NODE_BATCH):
            with clock.step("graph: nodes"):
                bench.load_memories(namespace=NAMESPACE, namespace_term=term, rows=part)
        for part in chunks(builder.edges, EDGE_BATCH):
            with clock.step("graph: relationships"):
                bench.load_relationships(namespace=NAMESPACE, rows=part)
        builder.nodes.clear()
        builder.edges.clear()

    sessions = world.sessions()
    reported = 0
    start = time.perf_counter()
    while builder.total < nodes:
        with clock.step("generate + extract"):
            builder.add_session(next(sessions))
        if len(builder.nodes) >= NODE_BATCH or len(builder.edges) >= EDGE_BATCH:
            flush()
        if builder.total - reported >= max(10_000, nodes // 10):
            reported = builder.total
            print(f"  {reported:>9,} nodes  {reported / (time.perf_counter() - start):8,.0f} nodes/s", flush=True)
    with clock.step("generate + extract"):
        builder.event_chains()
    flush()
    for part in chunks(builder.fact_updates(), NODE_BATCH):
        with clock.step("graph: fact updates"):
            bench.update_memories(namespace=NAMESPACE, rows=part)
    return builder


def embed_texts(runtime: Runtime, texts: list[str], clock: Clock) -> np.ndarray:
    """Vectors of `texts` (rows in order); each text is embedded once, ever, for a given model and precision."""
    model = f"{runtime.embedder.identity}:{runtime.embedder.encoder.exported.precision}"  # a pair is not its MiniLM
    cached: dict[str, np.ndarray] = {}
    if EMBEDDING_CACHE.exists():
        with np.load(EMBEDDING_CACHE) as data:
            if str(data["model"]) == model and data["vectors"].shape[1] == runtime.embedder.dimension:
                cached = dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
    missing = [text for text in texts if text not in cached]
    print(
        f"  {len(texts):,} distinct texts, {len(missing):,} to embed ({len(texts) - len(missing):,} cached)", flush=True
    )
    start = time.perf_counter()
    for number, part in enumerate(chunks(missing, EMBED_CHUNK), 1):
        with clock.step("embedding"):
            vectors = runtime.embedder.embed_passages(part)
        cached.update(zip(part, np.asarray(vectors, dtype=np.float32), strict=True))
        done = min(len(missing), number * EMBED_CHUNK)
        print(f"  {done:>7,} embedded  {done / (time.perf_counter() - start):6.0f} texts/s", flush=True)
    if missing:
        HOME.mkdir(parents=True, exist_ok=True)
        vectors = np.stack(list(cached.values()))
        np.savez(EMBEDDING_CACHE, model=np.array(model), texts=np.array(list(cached)), vectors=vectors)
    return np.stack([cached[text] for text in texts]) if texts else np.zeros((0, runtime.embedder.dimension))


def store_vectors(runtime: Runtime, builder: GraphBuilder, clock: Clock) -> int:
    matrix = embed_texts(runtime, list(builder.texts), clock)
    records: list[VectorRecord] = []
    stored = 0
    for node_id, (node_type, indexes) in builder.vectors.items():
        if runtime.embedder.paired:  # the default pair: a mean of one model's vectors (the first text's)
            indexes = tuple(i for i in indexes if same_half(matrix[i], matrix[indexes[0]]))
        vector = matrix[indexes[0]] if len(indexes) == 1 else matrix[list(indexes)].mean(axis=0)
        if len(indexes) > 1:
            vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
        records.append(VectorRecord(node_id, vector.tolist(), {"type": node_type}))
        if len(records) >= VECTOR_BATCH or len(records) + stored == len(builder.vectors):
            with clock.step("vectors: upsert"):
                runtime.vectors.upsert(NAMESPACE, records)
            stored += len(records)
            records = []
    # The turns' context points, by the write path's own `store_context` (from the graph's TEMPORAL
    # chains and the vectors just stored).
    turns = [node_id for node_id, (node_type, _) in builder.vectors.items() if node_type == NodeType.DIALOGUE.value]
    for start in range(0, len(turns), VECTOR_BATCH):
        with clock.step("vectors: context points"):
            runtime.semantic.store_context(NAMESPACE, turns[start : start + VECTOR_BATCH])
    return stored


def fill_hot_window(runtime: Runtime, recent: Sequence[tuple[Turn, str]]) -> None:
    """The newest turns in the hot window, already ingested (as the turns API leaves them)."""
    for part in chunks(list(recent), 1_000):
        turns = [turn for turn, _ in part]
        runtime.hot_window.add(NAMESPACE, turns, [node_id for _, node_id in part])
        runtime.hot_window.ingested(NAMESPACE, [turn.key for turn in turns])


def recent_turns(world: World, sessions: int, keep: int) -> deque[tuple[Turn, str]]:
    recent: deque[tuple[Turn, str]] = deque(maxlen=keep)
    stream = world.sessions()
    for _ in range(sessions):
        recent.extend((turn, dialogue_id(turn.session_id, turn.turn_id)) for turn in next(stream).turns)
    return recent


# -- queries ---------------------------------------------------------------------------------------


def recall_queries(world: World, count: int, seed: int) -> list[tuple[str, str]]:
    """(kind, query) pairs from the world's vocabulary: `fact`, `entity`, `time` (a time expression),
    `topic`, and `zh` (Chinese: facts, names, times)."""
    rng = random.Random(f"{seed}:queries")
    en = [s for s, zh in SPEAKERS.items() if zh < 0.5]
    zh = [s for s, share in SPEAKERS.items() if share >= 0.5]

    def value(speaker: str, key: str) -> str:
        return rng.choice(world.life[speaker][key])

    def one() -> tuple[str, str]:
        roll = rng.random()
        s, z = rng.choice(en), rng.choice(zh)
        if roll < 0.2:
            return "fact", rng.choice([
                f"What car does {s} drive?", f"Where does {s} live?", f"Where does {s} work?",
                f"What is {s}'s favorite color?", f"What does {s} do for a living?", f"Does {s} have a pet?",
                f"What food does {s} like?", f"Who is {s}'s {value(s, 'relative').split()[0]}?",
            ])  # fmt: skip
        if roll < 0.4:
            return "entity", rng.choice([
                value(s, "trip"), value(s, "car"), value(s, "company"), f"the {value(s, 'project')} project",
                value(s, "colleague"), value(s, "relative").split()[1], value(s, "home"), value(s, "band"),
            ])  # fmt: skip
        if roll < 0.6:
            return "time", rng.choice([
                f"What did {s} do last week?", f"Where did {s} travel last month?", "What happened three days ago?",
                f"What did we discuss about {value(s, 'project')} two weeks ago?", f"What did {s} buy yesterday?",
                f"Where did {s} go in {rng.choice(VOCAB['month'])}?", "What did we talk about last weekend?",
            ])  # fmt: skip
        if roll < 0.75:
            return "topic", rng.choice([
                f"{value(s, 'food')} for dinner", f"hotel in {value(s, 'trip')}", f"the {value(s, 'project')} deadline",
                f"{value(s, 'bug')} bug", f"new {value(s, 'item')}", f"{value(s, 'race')} race",
            ])  # fmt: skip
        return "zh", rng.choice([
            f"{z}的车是什么？", f"{z}住在哪里？", f"{z}在哪里工作？", f"上周{z}去了哪里？", "昨天我们聊了什么？",
            value(z, "ztrip"), value(z, "zfood"), f"{value(z, 'zcompany')}", f"{z}最喜欢的颜色", f"{z}养了什么宠物？",
            f"两周前{value(z, 'project')}项目怎么样了？", f"{value(z, 'zrelative')}",
        ])  # fmt: skip

    return [one() for _ in range(count)]


@dataclass
class Sample:
    kind: str
    query: str
    wall_ms: float
    took_ms: float | None
    stats: dict[str, Any]


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def measure(
    base_url: str, headers: dict[str, str], queries: list[tuple[str, str]], warmup: int, now: datetime
) -> list[Sample] | None:
    """Post the queries one at a time from a separate process, as a real client would: a client in
    the server's own process shares its interpreter lock and adds its work to every request."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(measure_from_client, base_url, headers, queries, warmup, now).result()


def measure_from_client(
    base_url: str, headers: dict[str, str], queries: list[tuple[str, str]], warmup: int, now: datetime
) -> list[Sample] | None:
    with httpx.Client(base_url=base_url, timeout=600.0, headers=headers) as client:
        return _samples(client, queries, warmup, now)


def _samples(client: httpx.Client, queries: list[tuple[str, str]], warmup: int, now: datetime) -> list[Sample] | None:
    samples: list[Sample] = []
    for index, (kind, query) in enumerate(queries):
        body = {"query": query, "top_k": 10, "now": now.isoformat()}
        start = time.perf_counter()
        response = client.post(f"/v1/namespaces/{NAMESPACE}/recall", json=body)
        wall_ms = (time.perf_counter() - start) * 1000.0
        if response.status_code != 200:
            print(f"recall answered {response.status_code} for {query!r}: {response.text[:500]}")
            if response.status_code in (404, 405) and index == 0:
                return None
            response.raise_for_status()
        if index < warmup:
            continue
        answer = response.json()
        samples.append(Sample(kind, query, wall_ms, answer.get("took_ms"), answer.get("stats") or {}))
    return samples


# -- reporting -------------------------------------------------------------------------------------


def stat(samples: Sequence[Sample], key: str) -> list[float]:
    return [float(s.stats[key]) for s in samples if isinstance(s.stats.get(key), int | float)]


def ms(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.1f} ms"


def report(samples: list[Sample], total: int, load_s: float, decayed: bool) -> None:
    wall = [s.wall_ms for s in samples]
    took = [float(s.took_ms) for s in samples if isinstance(s.took_ms, int | float)]
    hot, cold, fusion = stat(samples, "hot_ms"), stat(samples, "cold_ms"), stat(samples, "fusion_ms")
    expanded, seeds = stat(samples, "expanded"), stat(samples, "seeds")
    activated, candidates = stat(samples, "activated"), stat(samples, "candidates")
    missing = sorted({k for s in samples for k in ("hot_ms", "cold_ms", "fusion_ms", "expanded", "seeds")
                      if k not in s.stats})  # fmt: skip
    print()
    state = "after the decay job" if decayed else "every node alive (no decay)"
    print(f"Recall latency, {total:,} nodes (load {load_s:.0f} s), {len(samples)} queries, top_k 10, one at a time "
          f"over HTTP, {state}")  # fmt: skip
    print()

    def target(key: str, value: float) -> str:
        goal = TARGETS[key]
        return f"≤ {goal:.0f} ms: {'met' if value <= goal else '**not met**'}"

    print("| measure | p50 | p95 | p99 | max | target (100k) |")
    print("|---|---:|---:|---:|---:|---|")
    print(f"| end-to-end (client) | {ms(percentile(wall, 50))} | {ms(percentile(wall, 95))} | "
          f"{ms(percentile(wall, 99))} | {ms(max(wall))} | p50 {target('e2e_p50', percentile(wall, 50))}, "
          f"p95 {target('e2e_p95', percentile(wall, 95))} |")  # fmt: skip
    for label, values, goal in (("server took_ms", took, ""), ("hot path", hot, "hot_p95"),
                                ("cold path", cold, ""), ("fusion", fusion, "")):  # fmt: skip
        if values:
            note = f"p95 {target(goal, percentile(values, 95))}" if goal else ""
            print(f"| {label} | {ms(percentile(values, 50))} | {ms(percentile(values, 95))} | "
                  f"{ms(percentile(values, 99))} | {ms(max(values))} | {note} |")  # fmt: skip
    print()
    print("| traversal | mean | p95 | max |")
    print("|---|---:|---:|---:|")
    for label, values in (("nodes expanded", expanded), ("seeds", seeds), ("activated", activated),
                          ("candidates", candidates)):  # fmt: skip
        if values:
            print(f"| {label} | {sum(values) / len(values):.1f} | {percentile(values, 95):.0f} | {max(values):.0f} |")
    if missing:
        print(f"\n(not in the answer's stats: {', '.join(missing)})")
    print()
    print("| query kind | n | p50 | p95 | hot p50 | cold p50 | expanded mean |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind in sorted({s.kind for s in samples}):
        group = [s for s in samples if s.kind == kind]
        g_exp = stat(group, "expanded")
        print(f"| {kind} | {len(group)} | {ms(percentile([s.wall_ms for s in group], 50))} | "
              f"{ms(percentile([s.wall_ms for s in group], 95))} | {ms(percentile(stat(group, 'hot_ms'), 50))} | "
              f"{ms(percentile(stat(group, 'cold_ms'), 50))} | "
              f"{sum(g_exp) / len(g_exp) if g_exp else math.nan:.0f} |")  # fmt: skip
    print()
    print("slowest queries:")
    for s in sorted(samples, key=lambda s: -s.wall_ms)[:5]:
        print(f"  {s.wall_ms:7.1f} ms  {s.kind:<6} {s.query!r}  "
              + ", ".join(f"{k}={v}" for k, v in s.stats.items() if isinstance(v, int | float)))  # fmt: skip


def report_hot_path_alone(runtime: Runtime, queries: list[tuple[str, str]], now: datetime) -> None:
    """The measured queries' hot path once more, called in this process with nothing else running:
    no cold path beside it on the two cores, no HTTP. Inside a recall the paths share the machine."""
    recall = runtime.recall
    times = []
    for _, query in queries:
        request = RecallRequest(query, now=now)
        parsed = parse_query(query, now, recall.vocabulary, recall.categories)
        start = time.perf_counter()
        recall.hot_path(NAMESPACE, parsed, request)
        times.append((time.perf_counter() - start) * 1000)
    print("| hot path alone (same queries, in-process, no cold path beside it) | p50 | p95 | p99 | max |")
    print("|---|---:|---:|---:|---:|")
    print(f"| hot window + `recall.hot` | {ms(percentile(times, 50))} | {ms(percentile(times, 95))} | "
          f"{ms(percentile(times, 99))} | {ms(max(times))} |")  # fmt: skip
    print()


def memory_report(runtime: Runtime) -> str:
    max_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    parts = [f"this process (API, embedder, vector engine) max RSS {max_rss_mb:,.0f} MB"]
    pid_file = HOME / "neo4j" / "run" / "hippograph-neo4j.pid"
    try:
        pid = pid_file.read_text().strip()
        rss = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS"))
        parts.append(f"Neo4j RSS {int(rss.split()[1]) / 1024:,.0f} MB")
    except (OSError, StopIteration, ValueError):
        pass
    try:
        parts.append(f"Redis used {runtime.redis.info('memory')['used_memory_human']}")
    except Exception:  # a report line, not worth failing the run
        return "; ".join(parts)
    return "; ".join(parts)


# -- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100_000, help="nodes in the namespace (default 100,000)")
    parser.add_argument("--queries", type=int, default=300, help="measured recall requests (default 300)")
    parser.add_argument("--warmup", type=int, default=1000, help="recall requests before measuring (default 1,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hot-turns", type=int, default=DEFAULT_MAX_TURNS, help="newest turns put in the hot window")
    parser.add_argument("--decay", action="store_true", help="run the decay job before measuring (soft-forgets "
                        "old, unvisited nodes, as the live service would); default: every node alive")  # fmt: skip
    parser.add_argument("--reuse", action="store_true", help="keep the namespace when it already holds this load")
    add_engine_arguments(parser)
    parser.set_defaults(heap="2g", pagecache="2g")
    args = parser.parse_args()
    with local_engines("bench-recall", BENCH_NEO4J_PORT, BENCH_REDIS_PORT, args) as settings:
        # Vectors outside the harness's temporary folder, so that --reuse finds them.
        runtime = Runtime.open(settings.model_copy(update={"qdrant_path": VECTOR_DIR}))
        try:
            run(runtime, args)
        finally:
            runtime.close()


def code_version() -> str:
    """The commit the read path was measured at, and whether app/ or cypher/ had uncommitted changes."""
    git = ["git", "-C", str(REPO)]
    try:
        commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        paths = ["app", "cypher", ":!cypher/bench.cypher"]
        changed = subprocess.run(
            [*git, "status", "--porcelain", "--", *paths], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    dirty = " + uncommitted changes in app/ or cypher/" if changed.stdout.strip() else ""
    return commit.stdout.strip() + dirty


def run(runtime: Runtime, args: argparse.Namespace) -> None:
    print(f"Neo4j {runtime.graph.server_version()}; namespace {NAMESPACE!r}, {args.nodes:,} nodes", flush=True)
    print(f"code: {code_version()}", flush=True)
    clock = Clock()
    with served_api(runtime) as client:
        world, recent, load_s = prepare(runtime, client, args, clock)
        with clock.step("hot window"):
            fill_hot_window(runtime, recent)
        now = max(turn.timestamp for turn, _ in recent) + timedelta(hours=1)
        if MARKER.exists():  # before decaying: a run stopped halfway must still be undone by the next one
            MARKER.write_text(json.dumps(json.loads(MARKER.read_text()) | {"decayed": args.decay}))
        if args.decay:
            with clock.step("decay job"):
                soft = decay_namespace(runtime, now)
            print(f"decay at {now.isoformat()}: {soft:,} nodes soft-forgotten", flush=True)
        # What the `hippograph.optimize_vectors` beat job does in a running service (a no-op when
        # the index is up to date, as with --reuse after a first run).
        with clock.step("vector index (optimize_vectors job)"):
            runtime.vectors.optimize()
        shown = client.get(f"/v1/namespaces/{NAMESPACE}").json()
        print()
        print("| step | seconds |")
        print("|---|---:|")
        for label, seconds in clock.seconds.items():
            print(f"| {label} | {seconds:.1f} |")
        print(f"| **load** (graph, embedding, vectors) | **{load_s:.1f}** |")
        print()
        counts = ", ".join(f"{t} {c:,}" for t, c in sorted(shown["counts"].items()))
        print(f"graph: {counts}; total {shown['total']:,}; vectors {shown['vectors']:,}")
        # Warm-up queries are drawn apart, so the measured ones are the same whatever --warmup is.
        queries = recall_queries(world, args.warmup, args.seed + 1) + recall_queries(world, args.queries, args.seed)
        print(f"\nrecall: {args.warmup} warm-up + {args.queries} measured, now = {now.isoformat()}", flush=True)
        load_before = os.getloadavg()[0]
        samples = measure(str(client.base_url), dict(client.headers), queries, args.warmup, now)
        machine = (
            f"1-min load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after ({os.cpu_count()} cores)"
        )
        if samples is None:
            print("\nPOST /v1/namespaces/{ns}/recall is not served yet: loaded only, nothing measured.")
        else:
            report(samples, shown["total"], load_s, args.decay)
            report_hot_path_alone(runtime, queries[args.warmup :], now)
        print()
        print("machine: " + machine)
        print("memory: " + memory_report(runtime))


def decay_namespace(runtime: Runtime, now: datetime) -> int:
    """The decay job; returns the nodes soft-forgotten."""
    return runtime.forgetting.decay(NAMESPACE, now).soft_forgotten


def prepare(
    runtime: Runtime, client: httpx.Client, args: argparse.Namespace, clock: Clock
) -> tuple[World, deque[tuple[Turn, str]], float]:
    """Load the namespace (or, with --reuse, find it loaded); returns the world, its newest turns
    and the load time in seconds."""
    marker = json.loads(MARKER.read_text()) if MARKER.exists() else {}
    shown = client.get(f"/v1/namespaces/{NAMESPACE}")
    loaded = shown.json() if shown.status_code == 200 else {}
    wanted = {"nodes": args.nodes, "seed": args.seed, "total": loaded.get("total"), "vectors": loaded.get("vectors"),
              "context_points": True}  # fmt: skip
    if args.reuse and loaded and all(marker.get(key) == value for key, value in wanted.items()):
        world = World(args.seed, args.nodes, datetime.fromisoformat(marker["start"]))
        print(f"reusing the namespace loaded at {marker['loaded_at']} ({marker['total']:,} nodes)", flush=True)
        if marker.get("decayed") and not args.decay:
            with clock.step("undo decay"):
                BenchQueries(runtime.graph).reset_activation(namespace=NAMESPACE)
        return world, recent_turns(world, marker["sessions"], args.hot_turns), float(marker["load_seconds"])
    MARKER.unlink(missing_ok=True)
    start = (datetime.now(UTC) - SPAN).replace(minute=0, second=0, microsecond=0)
    world = World(args.seed, args.nodes, start)
    with clock.step("clear namespace"):
        fresh_namespace(client, NAMESPACE)
    # Room for every node, so that a prune job would never trim the benchmark's data.
    capacity = max(DEFAULT_CAPACITY, 2 * args.nodes)
    client.put(f"/v1/namespaces/{NAMESPACE}", json={"capacity": capacity}).raise_for_status()
    print("loading the graph", flush=True)
    builder = load_graph(runtime, world, args.nodes, clock)
    print("embedding and storing vectors", flush=True)
    stored = store_vectors(runtime, builder, clock)
    load_s = sum(seconds for label, seconds in clock.seconds.items() if label != "clear namespace")
    loaded = client.get(f"/v1/namespaces/{NAMESPACE}").json()
    relationships = sum(builder.edge_counts.values())
    print()
    print(f"built {builder.sessions:,} sessions, {builder.seq:,} turns, {builder.total:,} nodes, {relationships:,} "
          f"relationships, {len(builder.texts):,} distinct texts, {stored:,} nodes with vectors, "
          f"{loaded['vectors']:,} points (with the turns' context points)")  # fmt: skip
    print("relationships: " + ", ".join(f"{t} {c:,}" for t, c in builder.edge_counts.most_common()))
    record = {"nodes": args.nodes, "seed": args.seed, "start": start.isoformat(), "sessions": builder.sessions,
              "total": loaded["total"], "vectors": loaded["vectors"], "load_seconds": load_s,
              "loaded_at": datetime.now(UTC).isoformat(timespec="seconds"), "decayed": False,
              "context_points": True}  # fmt: skip
    MARKER.write_text(json.dumps(record))
    return world, deque(builder.hot, maxlen=args.hot_turns), load_s


if __name__ == "__main__":
    main()
