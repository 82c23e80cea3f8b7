"""Tiny retrieval probe: queries -> the one right passage, in a pool with hard distractors.

Written by hand for this survey (memory-service style: facts said in chat turns). Every query has
exactly one right passage (by index); all other passages in the pool are distractors, several of
them sharing the query's surface words on purpose.
"""

# English passages (index = id). 0-19 are answers, 20-39 are distractors.
EN_PASSAGES = [
    "Alice mentioned she drives a red Tesla Model 3 that she bought last spring.",  # 0
    "My sister Anna started a new job at Globex as a data analyst in October.",  # 1
    "We had sushi for dinner last Friday at a tiny place near the train station.",  # 2
    "Bob is allergic to peanuts, so we never order Thai food when he comes over.",  # 3
    "The team decided to move the weekly standup from Monday to Tuesday at 10am.",  # 4
    "I'm planning a trip to Kyoto in March to see the plum blossoms.",  # 5
    "Our landlord raised the rent by 8 percent starting next January.",  # 6
    "Dr. Patel said my blood pressure is fine but I should cut down on salt.",  # 7
    "The production database was migrated to PostgreSQL 16 over the weekend.",  # 8
    "My daughter Lily scored two goals in her soccer match on Saturday.",  # 9
    "I finally finished reading 'The Three-Body Problem' and loved the ending.",  # 10
    "Carlos prefers to be contacted by email rather than phone after 6pm.",  # 11
    "The new office Wi-Fi password is written on the whiteboard in room 204.",  # 12
    "I adopted a grey cat from the shelter and named her Miso.",  # 13
    "The quarterly budget review is due to finance by the 15th of next month.",  # 14
    "I've been learning to play the cello for about six months now.",  # 15
    "Our flight to Lisbon was cancelled, so we rebooked for Thursday morning.",  # 16
    "Grandma's birthday party will be at her house on the 3rd of June.",  # 17
    "The bug in the checkout page was caused by a timezone conversion error.",  # 18
    "I switched from coffee to green tea because coffee was hurting my sleep.",  # 19
    # distractors
    "Alice said her brother drives a blue pickup truck for his construction work.",  # 20
    "Anna's old job at Initech ended when the company closed its Berlin office.",  # 21
    "We ordered pizza for lunch on Friday because the office kitchen was closed.",  # 22
    "Bob loves peanut butter sandwiches and eats one every morning.",  # 23
    "The monthly all-hands meeting stays on the first Monday of each month.",  # 24
    "Last year I visited Osaka in the autumn and ate a lot of takoyaki.",  # 25
    "The electricity bill went up a little because of the cold winter.",  # 26
    "Dr. Patel's clinic moved to a new building on Elm Street.",  # 27
    "We are still running the analytics warehouse on MySQL 5.7.",  # 28
    "Lily wants a new pair of soccer boots for her birthday.",  # 29
    "I started 'Dune' but gave up after the first hundred pages.",  # 30
    "Carlos called this morning about the invoice for the website redesign.",  # 31
    "The router in room 204 was replaced because it kept overheating.",  # 32
    "My neighbour's dog barks every time the mail carrier arrives.",  # 33
    "The annual tax return has to be filed before the end of April.",  # 34
    "My son practices the violin every evening before dinner.",  # 35
    "The train to Porto was delayed by two hours because of a strike.",  # 36
    "We celebrated Grandpa's retirement with a barbecue in the garden.",  # 37
    "The login page crashes on old versions of Safari.",  # 38
    "I drink two cups of coffee every morning before work.",  # 39
]

EN_QUERIES = [
    ("What car does Alice drive?", 0),
    ("Where does Anna work now?", 1),
    ("What did we eat last Friday evening?", 2),
    ("What food allergy does Bob have?", 3),
    ("When is the weekly standup now?", 4),
    ("Where am I travelling in the spring?", 5),
    ("How much did the rent go up?", 6),
    ("What did the doctor say about my health?", 7),
    ("Which database version does production run?", 8),
    ("How did Lily do in her last game?", 9),
    ("What book did I just finish?", 10),
    ("How should I reach Carlos in the evening?", 11),
    ("Where can I find the Wi-Fi password?", 12),
    ("What is the name of my pet?", 13),
    ("When is the budget review due?", 14),
    ("What instrument am I learning?", 15),
    ("What happened with our Lisbon flight?", 16),
    ("When is grandmother's birthday celebration?", 17),
    ("What caused the checkout bug?", 18),
    ("Why did I stop drinking coffee?", 19),
]

# Chinese passages: 0-9 answers, 10-19 distractors.
ZH_PASSAGES = [
    "上周五我去了北京看望奶奶，还一起吃了烤鸭。",  # 0
    "小王说他下个月要从上海搬到深圳工作。",  # 1
    "我对海鲜过敏，吃虾以后全身起疹子。",  # 2
    "项目的截止日期推迟到了十二月二十日。",  # 3
    "我妈妈最喜欢的花是茉莉花。",  # 4
    "李老师建议我每天背二十个英语单词。",  # 5
    "我们家的猫叫豆豆，今年三岁了。",  # 6
    "服务器昨晚宕机是因为磁盘空间满了。",  # 7
    "周末我和朋友去爬了黄山，风景非常美。",  # 8
    "我的新手机号码是一三八开头的，旧号码已经停用了。",  # 9
    # distractors
    "上周六我在家里打扫卫生，哪里也没去。",  # 10
    "小王的哥哥在北京的一家银行上班。",  # 11
    "我很喜欢吃海鲜，尤其是清蒸鱼。",  # 12
    "会议室的预订需要提前两天申请。",  # 13
    "我爸爸喜欢在阳台上种番茄和辣椒。",  # 14
    "李老师的课安排在每周三下午。",  # 15
    "邻居家的狗昨天晚上一直在叫。",  # 16
    "数据库的备份每天凌晨三点自动运行。",  # 17
    "明年春天我想去云南旅游。",  # 18
    "我买了一台新电脑，用来写代码。",  # 19
]

ZH_QUERIES = [
    ("我上周五去了哪里？", 0),
    ("小王要搬到哪个城市？", 1),
    ("我对什么过敏？", 2),
    ("项目什么时候截止？", 3),
    ("妈妈喜欢什么花？", 4),
    ("老师让我每天做什么？", 5),
    ("我的猫叫什么名字？", 6),
    ("服务器为什么出故障了？", 7),
    ("周末我们去哪里爬山了？", 8),
    ("我换了新的电话号码吗？", 9),
]

# Cross-lingual: Chinese queries over the English pool, English queries over the Chinese pool.
ZH_TO_EN_QUERIES = [
    ("爱丽丝开什么车？", 0),
    ("安娜现在在哪家公司工作？", 1),
    ("鲍勃对什么过敏？", 3),
    ("我三月份要去哪里旅行？", 5),
    ("我养的猫叫什么？", 13),
    ("我在学什么乐器？", 15),
    ("为什么我不喝咖啡了？", 19),
    ("结账页面的错误是什么原因造成的？", 18),
]
EN_TO_ZH_QUERIES = [
    ("Where did I go last Friday?", 0),
    ("Which city is Xiao Wang moving to?", 1),
    ("What am I allergic to?", 2),
    ("When is the project deadline?", 3),
    ("What is my cat called?", 6),
    ("Why did the server go down?", 7),
    ("Which mountain did we climb at the weekend?", 8),
    ("What flower does my mother like?", 4),
]

SETS = {
    "en": (EN_QUERIES, EN_PASSAGES),
    "zh": (ZH_QUERIES, ZH_PASSAGES),
    "zh->en": (ZH_TO_EN_QUERIES, EN_PASSAGES),
    "en->zh": (EN_TO_ZH_QUERIES, ZH_PASSAGES),
    # everything in one mixed pool (60 passages): the realistic case for a bilingual store
    "mixed": (
        EN_QUERIES + [(q, i + len(EN_PASSAGES)) for q, i in ZH_QUERIES],
        EN_PASSAGES + ZH_PASSAGES,
    ),
}
