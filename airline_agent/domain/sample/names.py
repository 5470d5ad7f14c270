"""Word lists for the sample generator: names, streets and US cities (invented people)."""

from __future__ import annotations

FIRST_NAMES: tuple[str, ...] = (
    "Aarav", "Amelia", "Anya", "Ava", "Chen", "Daiki", "Emma", "Ethan", "Evelyn", "Fatima",
    "Harper", "Isabella", "Ivan", "James", "Juan", "Lei", "Liam", "Lucas", "Mason", "Mei",
    "Mia", "Mohamed", "Noah", "Olivia", "Omar", "Raj", "Sofia", "Sophia", "Yara", "Yusuf",
    "Chloe", "Lina", "Nadia", "Priya", "Kenji", "Zoe", "Mateo", "Elena", "Hana", "Arjun",
)  # fmt: skip

LAST_NAMES: tuple[str, ...] = (
    "Ahmed", "Brown", "Davis", "Garcia", "Gonzalez", "Hernandez", "Ito", "Johansson", "Jackson",
    "Khan", "Kim", "Kovacs", "Lee", "Li", "Lopez", "Martin", "Moore", "Muller", "Nguyen",
    "Patel", "Rossi", "Sanchez", "Santos", "Silva", "Smith", "Sun", "Taylor", "Thomas",
    "Wang", "Wilson", "Novak", "Okafor", "Costa", "Jensen", "Haddad",
)  # fmt: skip

STREETS: tuple[str, ...] = (
    "Willow Lane", "Cedar Street", "Sunset Drive", "Maple Avenue", "Oak Street", "Elm Street",
    "Pine Lane", "Hillcrest Drive", "Lakeview Drive", "River Road", "Park Avenue",
    "Highland Avenue", "Main Street", "Chestnut Street", "Broadway", "Spruce Street",
)  # fmt: skip

# City, state, first three digits of its zip codes.
CITIES: tuple[tuple[str, str, str], ...] = (
    ("Philadelphia", "PA", "191"), ("Houston", "TX", "770"), ("New York", "NY", "100"),
    ("Los Angeles", "CA", "900"), ("Chicago", "IL", "606"), ("Dallas", "TX", "752"),
    ("Denver", "CO", "802"), ("Seattle", "WA", "981"), ("Atlanta", "GA", "303"),
    ("Miami", "FL", "331"), ("Boston", "MA", "021"), ("Phoenix", "AZ", "850"),
    ("Las Vegas", "NV", "891"), ("Orlando", "FL", "328"), ("Charlotte", "NC", "282"),
    ("Minneapolis", "MN", "554"), ("Detroit", "MI", "482"), ("San Francisco", "CA", "941"),
    ("Austin", "TX", "787"), ("Columbus", "OH", "432"),
)  # fmt: skip
