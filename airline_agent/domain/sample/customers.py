"""The sample's customers: profiles, payment methods and saved passengers.

Every customer's first payment method can pay for a booking (a credit card or a gift
card), so every generated reservation has something to have been paid with.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from airline_agent.domain import showcase
from airline_agent.domain.loading import TableRows
from airline_agent.domain.sample.draws import Choice, RandInt, dob, draws
from airline_agent.domain.sample.names import CITIES, FIRST_NAMES, LAST_NAMES, STREETS

_MEMBERSHIPS = ("regular", "silver", "gold")
_MEMBERSHIP_WEIGHTS = (143, 182, 175)
_METHOD_COUNTS = (1, 2, 3, 4, 5, 6, 7)
_METHOD_COUNT_WEIGHTS = (80, 142, 111, 90, 41, 28, 8)
_CERTIFICATES = (100.0, 150.0, 250.0, 500.0)


class SampleCustomer:
    __slots__ = ("cards", "dob", "first_name", "last_name", "saved", "user_id")

    def __init__(self, user_id: str, first: str, last: str, dob: str) -> None:
        self.user_id = user_id
        self.first_name = first
        self.last_name = last
        self.dob = dob
        self.cards: list[str] = []  # payment ids that can pay a booking
        self.saved: list[tuple[str, str, str]] = []


def _payment_methods(
    customer: SampleCustomer,
    count: int,
    draw: tuple[RandInt, Choice, Callable[[], float]],
    rows: TableRows,
) -> None:
    randint, choice, random_ = draw
    ids: set[str] = set()
    for position in range(count):
        # The first method can always pay for a booking.
        kind = randint(0, 1) if position == 0 else randint(0, 2)
        source = ("credit_card", "gift_card", "certificate")[kind]
        payment_id = f"{source}_{randint(1000000, 9999999)}"
        while payment_id in ids:
            payment_id = f"{source}_{randint(1000000, 9999999)}"
        ids.add(payment_id)
        method = {
            "user_id": customer.user_id,
            "payment_id": payment_id,
            "position": position,
            "source": source,
            "brand": None,
            "last_four": None,
            "amount": None,
        }
        if kind == 0:
            method["brand"] = "visa" if random_() < 0.52 else "mastercard"
            method["last_four"] = f"{randint(0, 9999):04d}"
            customer.cards.append(payment_id)
        elif kind == 1:
            method["amount"] = float(randint(0, 300))
            customer.cards.append(payment_id)
        else:
            method["amount"] = choice(_CERTIFICATES)
        rows.payment_methods.append(method)


def _saved_passengers(
    customer: SampleCustomer, rng: random.Random, choice: Choice, rows: TableRows
) -> None:
    for position in range(1 if rng.random() < 0.66 else 2):
        saved = (choice(FIRST_NAMES), choice(LAST_NAMES), dob(rng, 1940, 2012))
        customer.saved.append(saved)
        rows.saved_passengers.append(
            {
                "user_id": customer.user_id,
                "position": position,
                "first_name": saved[0],
                "last_name": saved[1],
                "dob": saved[2],
            }
        )


def user_rows(count: int, rng: random.Random, rows: TableRows) -> list[SampleCustomer]:
    draw = draws(rng)
    randint, choice, _ = draw
    taken = {showcase.SHOWCASE_USER["user_id"]}
    customers = []
    memberships = rng.choices(_MEMBERSHIPS, _MEMBERSHIP_WEIGHTS, k=count)
    method_counts = rng.choices(_METHOD_COUNTS, _METHOD_COUNT_WEIGHTS, k=count)
    for index in range(count):
        first, last = choice(FIRST_NAMES), choice(LAST_NAMES)
        user_id = f"{first.lower()}_{last.lower()}_{randint(1000, 9999)}"
        while user_id in taken:
            user_id = f"{first.lower()}_{last.lower()}_{randint(1000, 99999)}"
        taken.add(user_id)
        city, state, zip_prefix = choice(CITIES)
        customer = SampleCustomer(user_id, first, last, dob(rng, 1945, 2004))
        rows.users.append(
            {
                "user_id": user_id,
                "first_name": first,
                "last_name": last,
                "address1": f"{randint(1, 999)} {choice(STREETS)}",
                "address2": f"Suite {randint(100, 999)}",
                "city": city,
                "country": "USA",
                "state": state,
                "zip": f"{zip_prefix}{randint(0, 99):02d}",
                "email": f"{first.lower()}.{last.lower()}{randint(1000, 9999)}@example.com",
                "dob": customer.dob,
                "membership": memberships[index],
            }
        )
        _payment_methods(customer, method_counts[index], draw, rows)
        _saved_passengers(customer, rng, choice, rows)
        customers.append(customer)
    return customers
