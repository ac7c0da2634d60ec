"""Shared word lists and helpers for bench/gen-catalog-shop and bench/gen-catalog-sparse.

Everything here is a constant or a pure function of a seeded random.Random, so the generators
write the same bytes for the same arguments. Every word that can reach an indexed field has a
distinct stem under vi-continue's analyzer (see Sources/SearchSession/CatalogFormat.md,
"Analysis"), so the peers' plain tokenizers and vi-continue's stemming analyzer match the same
entities and their facet counts stay comparable.
"""
import bisect
import itertools
import json

COLOURS = ("black white red blue green grey silver beige brown navy pink yellow orange purple gold "
           "teal olive cream ivory maroon").split()
MATERIALS = ("steel cotton wood leather plastic glass ceramic linen wool bamboo copper aluminium "
             "oak walnut marble silk denim rubber stone porcelain").split()
NOUNS = """knife pan pot kettle mug cup plate bowl spoon fork whisk grater blender toaster oven lamp
chair table desk sofa bed pillow blanket towel curtain rug mirror shelf drawer cabinet basket jar
bottle candle clock vase frame hanger hook bucket broom sponge brush comb razor soap lotion shampoo
perfume wallet purse backpack suitcase umbrella scarf glove hat cap jacket coat shirt blouse skirt
dress sweater hoodie jeans trousers shorts sock boot sneaker sandal slipper belt watch ring necklace
bracelet earring phone tablet laptop monitor keyboard mouse speaker headphone camera charger cable
router printer drill hammer wrench saw screwdriver ladder hose shovel rake mower grill tent lantern
compass bicycle helmet skateboard ball racket bat glove puzzle doll robot kite guitar piano violin
drum flute trumpet novel poem atlas diary journal notebook pencil marker eraser stapler envelope
stamp map guide cookbook recipe soup salad bread cake pie cookie muffin pasta pizza risotto curry
stew noodle dumpling taco burrito sushi omelette pancake waffle sandwich burger steak chicken salmon
tuna shrimp tofu lentil bean rice barley oat quinoa almond walnut hazelnut cashew peanut honey jam
butter cheese yogurt cream milk coffee tea juice lemonade cider wine beer garden park museum
gallery theatre cinema library market harbour bridge tower castle palace cathedral chapel temple
beach lake river forest mountain valley island village square street avenue station airport hotel
hostel cafe bakery restaurant bistro diner pub bar shop boutique mall outlet pharmacy florist
butcher grocer bookstore studio workshop factory warehouse farm vineyard orchard meadow canyon
glacier cave cliff dune lagoon""".split()
ADJECTIVES = """classic modern vintage rustic compact portable foldable heavy light soft hard smooth
rough warm cool bright dark quiet loud fast slow tiny large small tall short wide narrow deep
shallow fresh crisp spicy sweet sour bitter salty savory creamy crunchy golden silent ancient
elegant simple premium deluxe organic natural handmade artisan urban coastal alpine tropical
nordic royal wild gentle bold sleek sturdy durable washable waterproof wireless electric manual
digital analog ergonomic slim cozy breezy sunny misty frosty stormy lucky happy brave clever
curious honest humble noble proud""".split()
OTHER = """morning evening night winter summer spring autumn holiday weekend festival journey
adventure story legend secret dream memory promise shadow light fire water earth wind storm thunder
rain snow ice sun moon star ocean wave tide harvest feast kitchen bath bedroom office outdoor travel
sport fitness yoga running hiking camping fishing cycling baking grilling brewing reading writing
painting drawing music dance family friend child baby pet dog cat horse bird fish garden home city
country world north south east west""".split()
CITIES = ("Berlin Hamburg Munich Vienna London Paris Cologne Zurich Oslo Madrid Lisbon Rome Milan Prague "
          "Warsaw Dublin Brussels Amsterdam Copenhagen Stockholm Helsinki Athens Budapest Krakow Porto Seville "
          "Lyon Marseille Geneva Basel Graz Salzburg Leipzig Dresden Bremen Hanover Bologna Naples Valencia Bilbao").split()
COUNTRIES = ("Germany Austria France Italy Spain Portugal Norway Sweden Denmark Finland Poland Ireland Belgium "
             "Netherlands Greece Hungary Czechia Switzerland Croatia Slovenia").split()
FIRST = ("Anna Ben Clara David Emma Felix Greta Hugo Ida Jonas Karla Leo Mila Noah Olga Paul Rosa Sven Tara Ugo "
         "Vera Will Xenia Yusuf Zoe Amir Bea Carl Dora Emil Frida Gustav Hanna Ivan Jana Kai Lena Max Nina Otto").split()
LAST = ("Abel Berg Costa Dahl Eder Fink Graf Hahn Iver Jung Klein Lang Moser Nagel Ortiz Pohl Quist Roth Sauer "
        "Thal Ulm Vogt Weber Xu Yilmaz Zeller Brandt Fischer Koch Lorenz Meyer Neumann Richter Schulz Wagner").split()
LANGUAGES = "English German French Spanish Italian Dutch Swedish Polish Portuguese Greek".split()
CUISINES = "italian french german thai indian mexican japanese greek spanish turkish korean lebanese".split()
# Real words that no generator puts in a catalog: labels made of them match nothing.
OUT_OF_VOCABULARY = """zebra giraffe volcano asteroid nebula galaxy quasar comet meteor penguin walrus
narwhal octopus jellyfish platypus armadillo flamingo pelican toucan iguana chameleon tarantula
scorpion mammoth dinosaur glockenspiel accordion bagpipe harmonica xylophone trombone saxophone
tuba banjo ukulele mandolin cello harpsichord sextant periscope telescope microscope stethoscope
thermometer barometer seismograph hovercraft submarine zeppelin catamaran gondola trampoline
pinwheel boomerang yoyo kaleidoscope hourglass sundial obelisk pyramid sphinx gargoyle minotaur
centaur griffin phoenix unicorn dragon kraken yeti sasquatch chupacabra leprechaun""".split()


# English plurals the suffix rules get wrong (Analyzer.irregularPlurals, in the same order).
IRREGULAR_PLURALS = {
    "knives": "knife", "wives": "wife", "lives": "life", "leaves": "leaf", "loaves": "loaf", "halves": "half",
    "shelves": "shelf", "wolves": "wolf", "calves": "calf", "thieves": "thief", "scarves": "scarf", "hooves": "hoof",
    "elves": "elf", "selves": "self", "sheaves": "sheaf", "potatoes": "potato", "tomatoes": "tomato",
    "heroes": "hero", "echoes": "echo", "mangoes": "mango", "volcanoes": "volcano", "mosquitoes": "mosquito",
    "torpedoes": "torpedo", "vetoes": "veto", "dominoes": "domino", "buffaloes": "buffalo", "tornadoes": "tornado",
    "men": "man", "women": "woman", "children": "child", "people": "person", "feet": "foot", "teeth": "tooth",
    "geese": "goose", "mice": "mouse", "lice": "louse", "oxen": "ox", "cacti": "cactus", "fungi": "fungus",
    "nuclei": "nucleus", "radii": "radius", "stimuli": "stimulus", "criteria": "criterion",
    "phenomena": "phenomenon", "indices": "index", "matrices": "matrix", "vertices": "vertex",
    "appendices": "appendix", "analyses": "analysis", "crises": "crisis", "theses": "thesis",
    "diagnoses": "diagnosis", "hypotheses": "hypothesis", "oases": "oasis", "buses": "bus", "gases": "gas",
    "lenses": "lens", "bonuses": "bonus", "viruses": "virus", "campuses": "campus", "circuses": "circus",
    "octopuses": "octopus", "statuses": "status", "walruses": "walrus", "choruses": "chorus", "geniuses": "genius",
    "atlases": "atlas", "canvases": "canvas", "irises": "iris", "quizzes": "quiz", "cookies": "cookie",
    "movies": "movie", "hoodies": "hoodie", "zombies": "zombie", "brownies": "brownie", "calories": "calorie",
    "smoothies": "smoothie", "rookies": "rookie", "selfies": "selfie", "beanies": "beanie", "goalies": "goalie",
    "pixies": "pixie", "prairies": "prairie", "genies": "genie", "aunties": "auntie", "boogies": "boogie",
}


def regular_stem(word):
    """The suffix rules of vi-continue's plural stemming (Analyzer.regularStem)."""
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("xes", "ches", "shes")):
        return word[:-2]
    if word.endswith(("ss", "us", "is")):
        return word
    return word[:-1]


def stem(word):
    """vi-continue's plural stemming (Analyzer.stem), for words in lower case: the irregular
    plurals to their singulars as the suffix rules leave them, then the suffix rules."""
    if word in IRREGULAR_PLURALS:
        return regular_stem(IRREGULAR_PLURALS[word])
    return regular_stem(word)


def distinct_stems(words, taken=None):
    """`words` in order, lower-cased, dropping any whose stem an earlier word (or `taken`) has."""
    seen = set() if taken is None else set(taken)
    out = []
    for w in words:
        w = w.lower()
        s = stem(w)
        if s in seen:
            continue
        seen.add(s)
        out.append(w)
    return out


def compounds(rng, parts, n, taken):
    """`n` made-up but word-like compounds (`oakhaven`, `steelbrook`) of two parts, stem-distinct
    from `taken` and from each other."""
    left = [p for p in parts if 3 <= len(p) <= 7]
    right = [p for p in parts if 3 <= len(p) <= 6 and p[-1] != "s"]
    pairs = [a + b for a, b in itertools.product(left, right) if a != b]
    rng.shuffle(pairs)
    seen = {stem(t) for t in taken}
    out = []
    for w in pairs:
        if stem(w) in seen:
            continue
        seen.add(stem(w))
        out.append(w)
        if len(out) == n:
            break
    return out


class Zipf:
    """Draws from `items` with weight 1 / rank^s."""

    def __init__(self, items, s):
        self.items = list(items)
        self.cum = list(itertools.accumulate(1.0 / (i + 1) ** s for i in range(len(self.items))))

    def draw(self, rng, k=1):
        return rng.choices(self.items, cum_weights=self.cum, k=k)

    def rank_of_fraction(self, fraction):
        """The first rank whose cumulative share reaches `fraction`."""
        return bisect.bisect_left(self.cum, fraction * self.cum[-1])


def write_truth(path, truth):
    """Each query's ground truth, one JSON line per query in query order: `target` is the
    `type/id` of the entity the query was drawn from (null when its labels are out of catalog),
    `out_of_catalog` whether its labels were drawn from words the catalog does not have, and
    `category`, when given, the category the query was drawn from."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            for t in truth:
                f.write(json.dumps(t, ensure_ascii=False) + "\n")


def write_synonyms(path, groups):
    """The catalog's synonym groups as catalog synonym lines ({"synonyms": [...]}), ready to be
    appended to the catalog file; groups of fewer than two distinct terms are left out."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            for g in groups:
                g = list(dict.fromkeys(g))
                if len(g) > 1:
                    f.write(json.dumps({"synonyms": g}, ensure_ascii=False) + "\n")


def labels(rng, words):
    return [{"text": w, "confidence": round(rng.uniform(0.5, 1), 2)} for w in words]
