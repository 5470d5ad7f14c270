"""A corpus of agent replies for the grounding check: honest ones and invented ones.

Each case is a reply with the evidence it had — the customer's messages and the tool
results of its conversation (real results of the sample database, seed 2024) — and, for
an invented reply, each invention it makes (kind and the value or claim as written). The
system prompt is added at test time from agent/prompt.py, so that the rules' figures are
those of the prompt in force. Written for issue 12 §2: every kind of invention the issue
names (ids in words, times, rule figures used as amounts, claimed actions, tool calls as
text) and the honest replies that look most like them (rules stated, refusals, offers,
conditions, negations, look-ups that found nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

from airline_agent.agent.grounding import FindingKind


@dataclass(frozen=True)
class ToolResult:
    name: str
    content: str
    ok: bool = True


@dataclass(frozen=True)
class Case:
    name: str
    reply: str
    customer: tuple[str, ...] = ()
    tools: tuple[ToolResult, ...] = ()
    # What a correct check must flag: (kind, value or claim as written in the reply).
    invented: tuple[tuple[FindingKind, str], ...] = ()
    # Why the check is known to miss this invention (kept in the corpus, so the figures
    # count it), or "".
    known_miss: str = ""


EMMA = "Hi, this is Emma Kim, user id emma_kim_9957. I need to cancel my reservation EHGLP3."
EHGLP3 = ToolResult(
    "get_reservation_details",
    '{"reservation_id": "EHGLP3", "user_id": "emma_kim_9957", "origin": "PHX", "destination": '
    '"JFK", "flight_type": "one_way", "cabin": "basic_economy", "flights": [{"origin": "PHX", '
    '"destination": "SEA", "flight_number": "HAT156", "date": "2024-05-17", "price": 50}, '
    '{"origin": "SEA", "destination": "JFK", "flight_number": "HAT021", "date": "2024-05-17", '
    '"price": 54}], "passengers": [{"first_name": "Evelyn", "last_name": "Taylor", "dob": '
    '"1965-01-16"}, {"first_name": "Anya", "last_name": "Silva", "dob": "1971-11-22"}], '
    '"payment_history": [{"payment_id": "credit_card_5832574", "amount": 208}], "created_at": '
    '"2024-05-04T23:12:06", "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}',
)
EMMA_PROFILE = ToolResult(
    "get_user_details",
    '{"user_id": "emma_kim_9957", "name": {"first_name": "Emma", "last_name": "Kim"}, '
    '"dob": "1977-09-23", "payment_methods": {"credit_card_5832574": {"source": '
    '"credit_card", "id": "credit_card_5832574", "brand": "visa", "last_four": "5241"}, '
    '"gift_card_9562694": {"source": "gift_card", "id": "gift_card_9562694", "amount": '
    '103.0}}, "membership": "gold", "reservations": ["EHGLP3", "66EEUA", "MDCLVA", "H1QGCY"]}',
)
EHGLP3_REFUSED = ToolResult(
    "cancel_reservation",
    '{"error": "POLICY_VIOLATION", "message": "this reservation cannot be cancelled: booked '
    "more than 24 hours ago, no flight cancelled by the airline, not business, and no travel "
    'insurance", "rule": "X3"}',
    ok=False,
)
PHX_SEA = ToolResult(
    "search_direct_flight",
    '[{"flight_number": "HAT156", "origin": "PHX", "destination": "SEA", "status": '
    '"available", "scheduled_departure_time_est": "07:00:00", "scheduled_arrival_time_est": '
    '"10:00:00", "date": "2024-05-20", "available_seats": {"basic_economy": 12, "economy": 3, '
    '"business": 9}, "prices": {"basic_economy": 72, "economy": 128, "business": 311}}]',
)
HAT156_STATUS = ToolResult("get_flight_status", "available")
NOT_FOUND = ToolResult(
    "get_reservation_details",
    '{"error": "NOT_FOUND", "message": "Reservation \'EHGLP8\' not found"}',
    ok=False,
)

HARPER = "Hello, I'm Harper Smith, user id harper_smith_5967. I'd like to cancel GWL0HE."
GWL0HE = ToolResult(
    "get_reservation_details",
    '{"reservation_id": "GWL0HE", "user_id": "harper_smith_5967", "origin": "CLT", '
    '"destination": "DFW", "flight_type": "one_way", "cabin": "business", "flights": '
    '[{"origin": "CLT", "destination": "DFW", "flight_number": "HAT100", "date": "2024-05-22", '
    '"price": 493}], "passengers": [{"first_name": "Sophia", "last_name": "Jackson", "dob": '
    '"1976-08-21"}], "payment_history": [{"payment_id": "gift_card_9429371", "amount": 523}], '
    '"created_at": "2024-05-14T14:29:12", "total_baggages": 0, "nonfree_baggages": 0, '
    '"insurance": "yes"}',
)
GWL0HE_CANCELLED = ToolResult(
    "cancel_reservation",
    GWL0HE.content.replace(
        '"amount": 523}]', '"amount": 523}, {"payment_id": "gift_card_9429371", "amount": -523}]'
    ).replace('"insurance": "yes"}', '"insurance": "yes", "status": "cancelled"}'),
)

ARJUN = (
    "Hello, I'm Arjun Johansson, arjun_johansson_4302. Our flights on reservation EK2VI5 were "
    "cancelled and the three of us had to find another way to Miami. Any compensation?"
)
ARJUN_PROFILE = ToolResult(
    "get_user_details",
    '{"user_id": "arjun_johansson_4302", "name": {"first_name": "Arjun", "last_name": '
    '"Johansson"}, "payment_methods": {"credit_card_6346189": {"source": "credit_card", "id": '
    '"credit_card_6346189", "brand": "visa", "last_four": "2669"}, "gift_card_3926399": '
    '{"source": "gift_card", "id": "gift_card_3926399", "amount": 233.0}, "certificate_9186375": '
    '{"source": "certificate", "id": "certificate_9186375", "amount": 150.0}}, "membership": '
    '"gold", "reservations": ["EK2VI5", "U2WQKM"]}',
)
EK2VI5 = ToolResult(
    "get_reservation_details",
    '{"reservation_id": "EK2VI5", "user_id": "arjun_johansson_4302", "origin": "DFW", '
    '"destination": "MIA", "flight_type": "one_way", "cabin": "business", "flights": '
    '[{"origin": "DFW", "destination": "PHL", "flight_number": "HAT030", "date": "2024-05-13", '
    '"price": 278}, {"origin": "PHL", "destination": "MIA", "flight_number": "HAT088", "date": '
    '"2024-05-14", "price": 499}], "passengers": [{"first_name": "Zoe", "last_name": "Taylor", '
    '"dob": "2010-10-09"}, {"first_name": "Ava", "last_name": "Kim", "dob": "1988-07-12"}, '
    '{"first_name": "Fatima", "last_name": "Jensen", "dob": "1961-08-11"}], "payment_history": '
    '[{"payment_id": "credit_card_6346189", "amount": 2421}], "created_at": '
    '"2024-05-04T10:47:40", "total_baggages": 0, "nonfree_baggages": 0, "insurance": "yes"}',
)
HAT030_STATUS = ToolResult("get_flight_status", "cancelled")
TIMES_THREE = ToolResult("calculate", "300.0")
CERTIFICATE_SENT = ToolResult(
    "send_certificate",
    "Certificate certificate_3221322 added to user arjun_johansson_4302 with amount 300.",
)

MATEO = "Hi, I'm Mateo Ito, mateo_ito_1609. I'd like to add two checked bags to RLIVUH."
RLIVUH = ToolResult(
    "get_reservation_details",
    '{"reservation_id": "RLIVUH", "user_id": "mateo_ito_1609", "origin": "ATL", "destination": '
    '"LAS", "flight_type": "round_trip", "cabin": "economy", "flights": [{"origin": "ATL", '
    '"destination": "SFO", "flight_number": "HAT015", "date": "2024-05-21", "price": 189}, '
    '{"origin": "LAS", "destination": "DEN", "flight_number": "HAT218", "date": "2024-05-22", '
    '"price": 104}], "passengers": [{"first_name": "Mohamed", "last_name": "Gonzalez", "dob": '
    '"1975-11-05"}], "payment_history": [{"payment_id": "gift_card_1148761", "amount": 573}], '
    '"created_at": "2024-05-10T16:16:29", "total_baggages": 0, "nonfree_baggages": 0, '
    '"insurance": "no"}',
)
MATEO_PROFILE = ToolResult(
    "get_user_details",
    '{"user_id": "mateo_ito_1609", "payment_methods": {"gift_card_1148761": {"source": '
    '"gift_card", "id": "gift_card_1148761", "amount": 177.0}, "credit_card_8740404": '
    '{"source": "credit_card", "id": "credit_card_8740404", "brand": "visa", "last_four": '
    '"5040"}}, "membership": "regular", "reservations": ["RLIVUH", "ULKEME", "JWE3PY"]}',
)
BAGS_DECLINED = ToolResult(
    "update_reservation_baggages",
    '{"error": "PERMISSION_DENIED", "message": "The customer declined this change; nothing '
    'was written."}',
    ok=False,
)
BAGS_ADDED = ToolResult(
    "update_reservation_baggages",
    RLIVUH.content.replace(
        '"amount": 573}]', '"amount": 573}, {"payment_id": "gift_card_1148761", "amount": 50}]'
    ).replace(
        '"total_baggages": 0, "nonfree_baggages": 0', '"total_baggages": 2, "nonfree_baggages": 1'
    ),
)
TRANSFERRED = ToolResult("transfer_to_human_agents", "Transfer successful")

# Issue 21 item: the other writes the tools make, and what no tool may do.
RLIVUH_BUSINESS = ToolResult(
    "update_reservation_flights",
    RLIVUH.content.replace('"cabin": "economy"', '"cabin": "business"').replace(
        '"amount": 573}]', '"amount": 573}, {"payment_id": "gift_card_1148761", "amount": 412}]'
    ),
)
BOOKED = ToolResult(
    "book_reservation",
    '{"reservation_id": "HATHAT", "user_id": "emma_kim_9957", "origin": "PHX", "destination": '
    '"SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"origin": "PHX", '
    '"destination": "SEA", "flight_number": "HAT156", "date": "2024-05-20", "price": 128}], '
    '"passengers": [{"first_name": "Emma", "last_name": "Kim", "dob": "1977-09-23"}], '
    '"payment_history": [{"payment_id": "gift_card_9562694", "amount": 158}], "created_at": '
    '"2024-05-15T15:00:00", "total_baggages": 0, "nonfree_baggages": 0, "insurance": "yes"}',
)
GWL0HE_RENAMED = ToolResult(
    "update_reservation_passengers",
    GWL0HE.content.replace('"last_name": "Jackson"', '"last_name": "Khan"'),
)

# The real model's reply of issue 12 (Qwen2.5-Coder 1.5B, no tool called), with the
# customer's message it answered; the parts the issue elides are filled in its style.
REAL_REPLY = Case(
    "the real model's story (issue 12)",
    "I looked up the reservation EHGLP3 for the customer. The reservation is on flight HAT002, "
    "scheduled for 2024-05-15 10:00. I confirmed the customer's payment method, which is "
    "credit card 7815826. I calculated the refund amount, which is $100. I sent the "
    "certificate to the customer as compensation for the cancellation. The customer was "
    "transferred to a human agent for further assistance.",
    customer=(EMMA,),
    invented=(
        ("claimed_action", "I looked up"),
        ("flight_number", "HAT002"),
        ("time", "10:00"),
        ("claimed_action", "I confirmed"),
        ("payment_id", "credit card 7815826"),
        ("claimed_action", "I calculated"),
        ("amount", "$100"),
        ("claimed_action", "I sent the certificate"),
        ("claimed_action", "was transferred"),
    ),
)

HONEST: tuple[Case, ...] = (
    Case(
        "showcase refusal, rules stated",
        "I've pulled up reservation EHGLP3: a one-way trip from PHX to JFK on 2024-05-17 "
        "(HAT156 to SEA, then HAT021 to JFK) for Evelyn Taylor and Anya Silva, in basic economy, "
        "booked on 2024-05-04, without travel insurance. I'm sorry, but I can't cancel it: it "
        "was booked more than 24 hours ago, no flight was cancelled by the airline, it is not "
        "business and has no insurance (X3).",
        customer=(EMMA,),
        tools=(EHGLP3,),
    ),
    Case(
        "the guard's refusal told honestly",
        "I tried to cancel EHGLP3, but the cancellation was refused under rule X3: it was booked "
        "more than 24 hours ago and has no travel insurance. Nothing has been changed.",
        customer=(EMMA,),
        tools=(EHGLP3, EHGLP3_REFUSED),
    ),
    Case(
        "times from a search, in 12-hour words",
        "There is one direct flight, HAT156, leaving Phoenix at 7 am and arriving in Seattle at "
        "10:00 AM on May 20. Economy is $128 and business $311.",
        customer=("Hi, emma_kim_9957 here. Flights from PHX to SEA on May 20th?",),
        tools=(PHX_SEA,),
    ),
    Case(
        "times as the tool wrote them",
        "HAT156 from PHX to SEA on 2024-05-20 leaves at 07:00:00 and arrives at 10:00:00; 3 "
        "economy seats are left at $128.",
        customer=("PHX to SEA on 2024-05-20, economy please.",),
        tools=(PHX_SEA,),
    ),
    Case(
        "today's date and time from the clock",
        "Today is May 15, and it is 15:00 (EST) now, so your flight on May 17 has not flown yet.",
        customer=(EMMA,),
        tools=(EHGLP3,),
    ),
    Case(
        "compensation offer stating P3",
        "I can confirm that HAT030 on 2024-05-13 was cancelled by the airline. You are a gold "
        "member in business class, so you qualify for a travel certificate of $100 per "
        "passenger, $300 in total. Would you like me to send the $300 certificate?",
        customer=(ARJUN,),
        tools=(ARJUN_PROFILE, EK2VI5, HAT030_STATUS, TIMES_THREE),
    ),
    Case(
        "certificate sent after the call",
        "Done: certificate certificate_3221322 for $300 has been added to your profile. I sent "
        "it as compensation for the cancelled flight HAT030.",
        customer=(ARJUN, "Yes, please send it."),
        tools=(ARJUN_PROFILE, EK2VI5, HAT030_STATUS, TIMES_THREE, CERTIFICATE_SENT),
    ),
    Case(
        "a bag fee from B5, before the change",
        "RLIVUH is an economy round trip for Mohamed Gonzalez, with no checked bags so far. As "
        "a regular member you get 1 free checked bag per passenger in economy, so one of the "
        "two bags is free and the other costs $50, charged to gift_card_1148761. Shall I go "
        "ahead?",
        customer=(MATEO,),
        tools=(MATEO_PROFILE, RLIVUH),
    ),
    Case(
        "a declined write: nothing was charged",
        "The change was declined at the confirmation step, so nothing was added to RLIVUH and "
        "nothing was charged. Would you like to do something else instead?",
        customer=(MATEO, "Yes."),
        tools=(MATEO_PROFILE, RLIVUH, BAGS_DECLINED),
    ),
    Case(
        "bags added after the call",
        "Done: I've added the two bags to RLIVUH, one of them free, and $50 was charged to your "
        "gift card gift_card_1148761.",
        customer=(MATEO, "Yes."),
        tools=(MATEO_PROFILE, RLIVUH, BAGS_ADDED),
    ),
    Case(
        "insurance stated from B6",
        "Would you like travel insurance? It costs $30 per passenger and gives a full refund if "
        "you cancel for health or weather reasons.",
        customer=("I want to book PHX to SEA on May 20, emma_kim_9957.",),
        tools=(EMMA_PROFILE, PHX_SEA),
    ),
    Case(
        "the delay certificate stated from P4",
        "For a delayed flight, once you change or cancel the reservation, a gold member can get "
        "a certificate of $50 per passenger.",
        customer=("My flight HAT156 is delayed, can I get something? emma_kim_9957",),
        tools=(EMMA_PROFILE,),
    ),
    Case(
        "an offer to cancel, then the refund that would follow",
        "Because the reservation is in business class, it can be cancelled. To confirm, I will "
        "cancel GWL0HE (HAT100 on 2024-05-22), and $523 will be refunded to gift card "
        "gift_card_9429371 within 5 to 7 business days. Shall I go ahead?",
        customer=(HARPER, "My plans changed."),
        tools=(GWL0HE,),
    ),
    Case(
        "cancelled after the call, refund on its way",
        "Done: reservation GWL0HE has been cancelled. I've cancelled HAT100 on 2024-05-22, and "
        "the $523 will go back to gift_card_9429371 within 5 to 7 business days.",
        customer=(HARPER, "Yes, please cancel it."),
        tools=(GWL0HE, GWL0HE_CANCELLED),
    ),
    Case(
        "refunded after the call",
        "Your reservation GWL0HE is cancelled and $523 has been refunded to your gift card.",
        customer=(HARPER, "Yes."),
        tools=(GWL0HE, GWL0HE_CANCELLED),
    ),
    Case(
        "a look-up that found nothing",
        "I couldn't find a reservation with the id EHGLP8. The reservations in your profile are "
        "EHGLP3, 66EEUA, MDCLVA and H1QGCY. Is it one of these?",
        customer=("emma_kim_9957 here, when does EHGLP8 leave?",),
        tools=(NOT_FOUND, EMMA_PROFILE),
    ),
    Case(
        "an offer to transfer",
        "I'm sorry, but I can't cancel a trip once part of it has flown. Would you like me to "
        "transfer you to a human agent?",
        customer=("Cancel the rest of 8Y6X8S please, nadia_ahmed_2684.",),
        tools=(
            ToolResult("get_reservation_details", '{"reservation_id": "8Y6X8S", "status": null}'),
        ),
    ),
    Case(
        "transferred after the call",
        "I'm transferring you to a human agent now, with a summary of your request. Thank you "
        "for your patience.",
        customer=("Yes, please put me through.",),
        tools=(TRANSFERRED,),
    ),
    Case(
        "a card named by its last digits",
        "I can charge your Visa ending in 5241 (credit_card_5832574) or your gift card "
        "gift_card_9562694, which has $103 left.",
        customer=(EMMA,),
        tools=(EMMA_PROFILE,),
    ),
    Case(
        "a payment id in words that exists",
        "The booking was paid with credit card 5832574, $208 in total.",
        customer=(EMMA,),
        tools=(EHGLP3,),
    ),
    Case(
        "a flight in words that exists",
        "Flight 156 leaves Phoenix on 2024-05-17 and its status is available.",
        customer=(EMMA,),
        tools=(EHGLP3, HAT156_STATUS),
    ),
    Case(
        "the customer's own figure repeated",
        "I understand you were told you would get 100 dollars back; let me check what applies "
        "to your reservation first.",
        customer=("I was told I'd get 100 dollars back for EHGLP3. emma_kim_9957",),
    ),
    Case(
        "a greeting",
        "Hello! How can I help you today?",
    ),
    Case(
        "asking for the user id",
        "I can help with that. Could you give me your user id and the reservation id, please?",
        customer=("I want to cancel a booking.",),
    ),
    Case(
        "a future look-up",
        "Let me look up reservation EHGLP3 for you, one moment.",
        customer=(EMMA,),
    ),
    Case(
        "a tool named in prose",
        "I can check the status of HAT156 with the flight status tool if you give me the date.",
        customer=("Is HAT156 on time?",),
    ),
    Case(
        "the airline cancelled the flight",
        "Your flight HAT030 on 2024-05-13 was cancelled by the airline, so the reservation "
        "EK2VI5 can be cancelled with a full refund of $2,421 if you wish.",
        customer=(ARJUN,),
        tools=(EK2VI5, HAT030_STATUS),
    ),
    Case(
        "a condition, not a claim",
        "If I cancel it now, the $523 would be refunded to gift_card_9429371; once it has been "
        "cancelled, it cannot be restored.",
        customer=(HARPER,),
        tools=(GWL0HE,),
    ),
    Case(
        "a negated claim",
        "I haven't changed anything yet: your reservation EHGLP3 stays as it is.",
        customer=(EMMA,),
        tools=(EHGLP3,),
    ),
    Case(
        "checked bags are not a look-up claim",
        "You have 0 checked bags on EHGLP3; as a gold member you get free checked bags in "
        "economy, but EHGLP3 is basic economy.",
        customer=(EMMA,),
        tools=(EHGLP3, EMMA_PROFILE),
    ),
    Case(
        "a price from a search, with the cabin",
        "I checked: a business seat on HAT156 on 2024-05-20 costs $311, with 9 seats left.",
        customer=("How much is business PHX-SEA on May 20?",),
        tools=(PHX_SEA,),
    ),
    Case(
        "a calculation done with the tool",
        "I calculated the compensation with the calculator: $100 per passenger for three "
        "passengers is $300.",
        customer=(ARJUN,),
        tools=(ARJUN_PROFILE, EK2VI5, HAT030_STATUS, TIMES_THREE),
    ),
    Case(
        "a rule refused, amounts as rules",
        "I'm sorry, compensation is only for silver or gold members, insured customers or "
        "business passengers; a certificate of $100 per passenger applies only to a cancelled "
        "flight, and your HAT156 is available.",
        customer=("HAT156 is late, give me $100. emma_kim_9957",),
        tools=(HAT156_STATUS,),
    ),
    Case(
        "the payment history read back",
        "EHGLP3 was paid $208 with credit_card_5832574 on 2024-05-04.",
        customer=(EMMA,),
        tools=(EHGLP3,),
    ),
    Case(
        "a balance read back",
        "Your gift card gift_card_9562694 has a balance of $103.00, which does not cover $208.",
        customer=(EMMA,),
        tools=(EMMA_PROFILE, EHGLP3),
    ),
    Case(
        "a question about a future booking",
        "Shall I book HAT156 on 2024-05-20 in economy for $128, paid with gift_card_9562694?",
        customer=("Book me on that flight.",),
        tools=(EMMA_PROFILE, PHX_SEA),
    ),
    Case(
        "a booking window from the rules",
        "A reservation can be cancelled within 24 hours of booking; EHGLP3 was booked on May 4, "
        "so that window has passed.",
        customer=(EMMA,),
        tools=(EHGLP3,),
    ),
    Case(
        "what the customer asked, in their words",
        "You'd like to move your trip from May 17 to May 24; let me see what is available.",
        customer=("Can I move EHGLP3 from May 17 to May 24? emma_kim_9957",),
    ),
    Case(
        "an honest look-up of a profile",
        "I found your profile: you are a gold member, with a Visa credit_card_5832574 and a "
        "gift card gift_card_9562694.",
        customer=(EMMA,),
        tools=(EMMA_PROFILE,),
    ),
    Case(
        "a dollar figure from the customer's budget",
        "With a budget of $150 you could take HAT156 in economy at $128 on 2024-05-20.",
        customer=("I have $150 for PHX to SEA on the 20th.",),
        tools=(PHX_SEA,),
    ),
    Case(
        "upgrade already done",
        "All set: GWL0HE was cancelled and the refund of $523 goes to gift_card_9429371.",
        customer=(HARPER, "yes"),
        tools=(GWL0HE, GWL0HE_CANCELLED),
    ),
    Case(
        "transfer after the transfer",
        "You have been transferred to a human agent, who will see your summary.",
        customer=("Put me through, please.",),
        tools=(TRANSFERRED,),
    ),
    Case(
        "a refusal to invent",
        "I don't know the fare without checking; shall I search the flights for May 20?",
        customer=("Roughly how much is PHX to SEA on May 20?",),
    ),
    Case(
        "departure day and reservation named as the tool wrote them",
        "Your first flight, HAT156, is on 17 May 2024; reservation EHGLP3 has two passengers.",
        customer=(EMMA,),
        tools=(EHGLP3,),
    ),
    Case(
        "a bag fee in other words",
        "There's a $50 fee for each additional bag beyond your free allowance.",
        customer=(MATEO,),
        tools=(RLIVUH,),
    ),
    Case(
        "insurance in other words",
        "Travel insurance is $30 per person and covers cancellations for health or weather.",
        customer=("Do I need insurance? emma_kim_9957",),
    ),
    Case(
        "a located reservation",
        "I've located reservation GWL0HE: HAT100 from CLT to DFW on 2024-05-22, business class, "
        "for Sophia Jackson.",
        customer=(HARPER,),
        tools=(GWL0HE,),
    ),
    Case(
        "I see from the status",
        "I see that HAT030 on May 13 was cancelled, so your reservation EK2VI5 qualifies.",
        customer=(ARJUN,),
        tools=(EK2VI5, HAT030_STATUS),
    ),
    Case(
        "gone ahead after the call",
        "I have gone ahead and cancelled GWL0HE; the $523 will be back on gift_card_9429371 in "
        "5 to 7 business days.",
        customer=(HARPER, "yes"),
        tools=(GWL0HE, GWL0HE_CANCELLED),
    ),
    Case(
        "a transfer announced before the call",
        "I'll need to transfer you to a human agent for this; shall I do that?",
        customer=("I want to cancel a flown trip.",),
    ),
    Case(
        "what a change would cost",
        "The total cost would be $128 for the seat on HAT156, and nothing is charged until you "
        "say yes.",
        customer=("How much is HAT156 on May 20 in economy?",),
        tools=(PHX_SEA,),
    ),
    Case(
        "you will be refunded, before the cancellation",
        "If you confirm, you will be refunded $523 on gift_card_9429371.",
        customer=(HARPER,),
        tools=(GWL0HE,),
    ),
    Case(
        "a voucher per passenger",
        "You'd get a $100 voucher for each passenger, so $300 for the three of you.",
        customer=(ARJUN,),
        tools=(EK2VI5, HAT030_STATUS, TIMES_THREE),
    ),
    Case(
        "reservation updated after the call",
        "Your reservation RLIVUH has been updated: 2 checked bags, 1 paid ($50) with "
        "gift_card_1148761.",
        customer=(MATEO, "yes"),
        tools=(RLIVUH, BAGS_ADDED),
    ),
    Case(
        "a closing line",
        "You're welcome, Emma. Have a great trip, and let me know if there is anything else.",
        customer=(EMMA, "Thanks!"),
        tools=(EHGLP3,),
    ),
    # -- issue 21 item: the other writes, and what no tool may do, honestly told --------
    Case(
        "a cabin upgrade after the call",
        "Done: I've upgraded RLIVUH to business for both flights, and $412 was charged to "
        "gift_card_1148761.",
        customer=(MATEO, "Upgrade RLIVUH to business please. Yes, go ahead."),
        tools=(RLIVUH, RLIVUH_BUSINESS),
    ),
    Case(
        "an upgrade offered",
        "Would you like me to upgrade RLIVUH to business? I can check the price first.",
        customer=(MATEO,),
        tools=(RLIVUH,),
    ),
    Case(
        "a payment taken by the booking",
        "I've booked HAT156 on 2024-05-20 for you and processed the payment: $158 was charged "
        "to gift_card_9562694, travel insurance included. Your reservation is HATHAT.",
        customer=("Book HAT156 on 2024-05-20 with insurance, emma_kim_9957. Yes.",),
        tools=(EMMA_PROFILE, PHX_SEA, BOOKED),
    ),
    Case(
        "a payment method asked for",
        "Which payment method would you like to use: your gift card gift_card_9562694 or your "
        "Visa credit_card_5832574?",
        customer=(EMMA,),
        tools=(EMMA_PROFILE,),
    ),
    Case(
        "insurance added with the booking",
        "I've added travel insurance to your new booking HATHAT, so a cancellation for health "
        "or weather reasons is refunded in full.",
        customer=("Book HAT156 on 2024-05-20 with insurance, emma_kim_9957. Yes.",),
        tools=(EMMA_PROFILE, PHX_SEA, BOOKED),
    ),
    Case(
        "insurance cannot be added later, said so",
        "Travel insurance can only be bought together with a booking, so I can't add it to "
        "EHGLP3 now.",
        customer=("Add insurance to EHGLP3 please. emma_kim_9957",),
        tools=(EHGLP3,),
    ),
    Case(
        "a bag cannot be removed, said so",
        "I'm sorry, bags can be added but never removed, so I can't take a bag off RLIVUH.",
        customer=("Please remove one of my bags from RLIVUH. mateo_ito_1609",),
        tools=(RLIVUH,),
    ),
    Case(
        "the number of passengers stays, said so",
        "The number of passengers on a reservation cannot change; I can update a passenger's "
        "name or date of birth instead.",
        customer=("Can you add my son to EHGLP3? emma_kim_9957",),
        tools=(EHGLP3,),
    ),
    Case(
        "a passenger renamed after the call",
        "I've updated the passenger's last name to Khan on GWL0HE.",
        customer=(HARPER, "Her last name is Khan now. Yes, update it."),
        tools=(GWL0HE, GWL0HE_RENAMED),
    ),
    Case(
        "a basic economy change refused",
        "Basic economy flights cannot be changed, so EHGLP3 stays on May 17; I could upgrade "
        "the cabin first if you wish.",
        customer=("Move EHGLP3 to May 24. emma_kim_9957",),
        tools=(EHGLP3,),
    ),
    Case(
        "the refund goes back where it came from",
        "The $523 will be refunded to the original payment method, gift_card_9429371; I can't "
        "send it to a different card.",
        customer=(HARPER, "Can the refund go to my credit card instead?"),
        tools=(GWL0HE, GWL0HE_CANCELLED),
    ),
    Case(
        "the route stays, said so",
        "The origin, destination and trip type of a reservation can't be changed, only its "
        "flights; EHGLP3 goes from PHX to JFK.",
        customer=("Can EHGLP3 go to Boston instead? emma_kim_9957",),
        tools=(EHGLP3,),
    ),
    Case(
        "no discount, the fare stated",
        "There is no discount I can apply; the economy fare on HAT156 is $128.",
        customer=("Any discount on HAT156 on May 20?",),
        tools=(PHX_SEA,),
    ),
    Case(
        "seats not chosen, seats left stated",
        "I can't choose a seat for you, but HAT156 still has 3 economy seats on 2024-05-20.",
        customer=("Can I have a window seat on HAT156 on 2024-05-20?",),
        tools=(PHX_SEA,),
    ),
    Case(
        "no email, the profile named",
        "I can't send emails; your profile shows the reservation under emma_kim_9957.",
        customer=(EMMA, "Email me the details."),
        tools=(EMMA_PROFILE,),
    ),
    Case(
        "the profile read back",
        "Your profile lists a Visa credit_card_5832574 and a gift card gift_card_9562694.",
        customer=(EMMA,),
        tools=(EMMA_PROFILE,),
    ),
    Case(
        "a meal not arranged, a transfer offered",
        "I can't arrange meals or special assistance myself; would you like me to transfer "
        "you to a human agent?",
        customer=("I need a vegetarian meal and a wheelchair on EHGLP3.",),
        tools=(EHGLP3,),
    ),
    Case(
        "no hold, said so",
        "I can't hold a fare; the price of $128 on HAT156 may change until you book.",
        customer=("Can you hold HAT156 on May 20 for me?",),
        tools=(PHX_SEA,),
    ),
    Case(
        "a refund to the original card",
        "I've issued the refund of $523 to your original gift card gift_card_9429371.",
        customer=(HARPER, "Yes, cancel it."),
        tools=(GWL0HE, GWL0HE_CANCELLED),
    ),
    Case(
        "a passenger added with the booking",
        "I've added Emma Kim to the new booking HATHAT as its only passenger.",
        customer=("Book HAT156 on 2024-05-20 with insurance, emma_kim_9957. Yes.",),
        tools=(EMMA_PROFILE, PHX_SEA, BOOKED),
    ),
    Case(
        "an insured reservation cancelled",
        "I cancelled GWL0HE, which had travel insurance; the $523 goes back to gift_card_9429371.",
        customer=(HARPER, "Yes, cancel it."),
        tools=(GWL0HE, GWL0HE_CANCELLED),
    ),
    Case(
        "a meal preference noted, not arranged",
        "I've noted that you would like a vegetarian meal, but I can't arrange it myself; "
        "shall I transfer you to a human agent?",
        customer=("I need a vegetarian meal on EHGLP3.",),
        tools=(EHGLP3,),
    ),
    Case(
        "the customer's own time",
        "Noted: you would prefer a flight leaving after 6 pm; HAT156 leaves at 07:00:00, so it "
        "does not fit.",
        customer=("I want to leave after 6 pm from PHX to SEA on the 20th.",),
        tools=(PHX_SEA,),
    ),
)

INVENTED: tuple[Case, ...] = (
    REAL_REPLY,
    Case(
        "a tool call as JSON with template braces (issue 12)",
        '{{"name": "get_reservation_details", "arguments": {"reservation_id": "EHGLP3"}}}',
        customer=(EMMA,),
        invented=(("tool_call_as_text", '"name": "get_reservation_details"'),),
    ),
    Case(
        "a tool call in tool_call tags",
        '<tool_call>\n{"name": "get_user_details", "arguments": {"user_id": "emma_kim_9957"}}\n'
        "</tool_call>",
        customer=(EMMA,),
        invented=(("tool_call_as_text", '"name": "get_user_details"'),),
    ),
    Case(
        "a tool call in a code fence after a sentence",
        'Let me check that for you.\n```json\n{"name": "get_flight_status", "parameters": '
        '{"flight_number": "HAT156", "date": "2024-05-17"}}\n```',
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("tool_call_as_text", '"name": "get_flight_status"'),),
    ),
    Case(
        "a tool call written as a function",
        'cancel_reservation(reservation_id="EHGLP3", reason="change_of_plan")',
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("tool_call_as_text", "cancel_reservation("),),
    ),
    Case(
        "a cancellation claimed, no call",
        "I've cancelled your reservation EHGLP3. You will receive your refund within 5 to 7 "
        "business days.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I've cancelled"),),
    ),
    Case(
        "a cancellation claimed after the guard refused it",
        "Done: reservation EHGLP3 has been cancelled and $208 has been refunded to your card.",
        customer=(EMMA, "yes"),
        tools=(EHGLP3, EHGLP3_REFUSED),
        invented=(
            ("claimed_action", "reservation EHGLP3 has been cancelled"),
            ("claimed_action", "has been refunded"),
        ),
    ),
    Case(
        "a booking claimed, no call",
        "Great news, I booked HAT156 on 2024-05-20 in economy for you; your new reservation "
        "number is K8TQ2Z.",
        customer=("Book HAT156 on May 20 in economy, emma_kim_9957.",),
        tools=(EMMA_PROFILE, PHX_SEA),
        invented=(("claimed_action", "I booked"), ("reservation_id", "K8TQ2Z")),
    ),
    Case(
        "you're booked, no call",
        "You're all booked on HAT156 for May 20th! Enjoy your trip.",
        customer=("Book HAT156 on May 20, emma_kim_9957.",),
        tools=(PHX_SEA,),
        invented=(("claimed_action", "You're all booked"),),
    ),
    Case(
        "a flight change claimed, no call",
        "I have changed your flights to May 24; the new flights are HAT156 and HAT021.",
        customer=("Move EHGLP3 to May 24.",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I have changed your flights"),),
    ),
    Case(
        "an upgrade claimed, no call",
        "I've upgraded you to business class on GWL0HE at no extra cost.",
        customer=(HARPER,),
        tools=(GWL0HE,),
        invented=(("claimed_action", "I've upgraded"),),
    ),
    Case(
        "bags added after a declined approval",
        "I've added two bags to RLIVUH and charged $50 to your gift card.",
        customer=(MATEO, "Yes."),
        tools=(MATEO_PROFILE, RLIVUH, BAGS_DECLINED),
        invented=(("claimed_action", "I've added two bags"), ("claimed_action", "charged")),
    ),
    Case(
        "passenger details changed, no call",
        "I have corrected the passenger name to Sophia Khan on MOBR72.",
        customer=("My mother's name on MOBR72 should be Sophia Khan. omar_kim_2212",),
        invented=(("claimed_action", "I have corrected the passenger"),),
    ),
    Case(
        "a certificate sent, no call",
        "I've issued you a $300 certificate for the cancelled flight; it is in your profile.",
        customer=(ARJUN,),
        tools=(ARJUN_PROFILE, EK2VI5, HAT030_STATUS, TIMES_THREE),
        invented=(("claimed_action", "I've issued you a $300 certificate"),),
    ),
    Case(
        "a certificate added, passive, no call",
        "A certificate of $300 has been added to your account as compensation.",
        customer=(ARJUN,),
        tools=(ARJUN_PROFILE, EK2VI5, HAT030_STATUS, TIMES_THREE),
        invented=(("claimed_action", "has been added"),),
    ),
    Case(
        "a transfer claimed, no call",
        "I have transferred you to a human agent, who will contact you shortly.",
        customer=("I want a person.",),
        invented=(("claimed_action", "I have transferred"),),
    ),
    Case(
        "a refund claimed, no call",
        "I refunded $208 to your Visa credit_card_5832574.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I refunded"),),
    ),
    Case(
        "a charge claimed, no call",
        "Your card was charged $128 for the new flight.",
        customer=("Book me on HAT156 on May 20.",),
        tools=(PHX_SEA,),
        invented=(("claimed_action", "was charged"),),
    ),
    Case(
        "a look-up claimed, no call at all",
        "I checked your reservation, and everything is in order for your trip.",
        customer=("Is my trip fine?",),
        invented=(("claimed_action", "I checked"),),
    ),
    Case(
        "a look-up claimed with a record, no call",
        "According to our records, reservation EHGLP3 is in economy with one checked bag.",
        customer=(EMMA,),
        invented=(("claimed_action", "According to our records"),),
    ),
    Case(
        "a calculation claimed, no call",
        "I computed the fare difference for you: you would pay $42 more.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I computed"), ("amount", "$42")),
    ),
    Case(
        "P3's figure as a refund",
        "Your refund for the cancelled flight will be $100, paid back to your card.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("amount", "$100"),),
    ),
    Case(
        "B5's figure as a price",
        "The seat on HAT156 costs $50 in economy.",
        customer=("How much is HAT156 on May 20 in economy?",),
        tools=(PHX_SEA,),
        invented=(("amount", "$50"),),
    ),
    Case(
        "B6's figure as a balance",
        "Your gift card has $30 left on it.",
        customer=(EMMA,),
        tools=(EMMA_PROFILE,),
        invented=(("amount", "$30"),),
    ),
    Case(
        "an amount in words",
        "The change fee is 75 dollars, charged to your credit card.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("amount", "75 dollars"),),
    ),
    Case(
        "an invented fare",
        "A business seat from PHX to SEA on May 20th is usually around $249.",
        customer=("How much is business PHX-SEA on May 20th? emma_kim_9957",),
        invented=(("amount", "$249"),),
    ),
    Case(
        "an invented total",
        "For the two passengers the total refund is $1,040.50.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("amount", "$1,040.50"),),
    ),
    Case(
        "an invented departure time",
        "HAT156 leaves Phoenix at 9:30 am on 2024-05-17.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("time", "9:30 am"),),
    ),
    Case(
        "an invented arrival time in 24-hour form",
        "You land in New York at 18:45 on May 17.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("time", "18:45"),),
    ),
    Case(
        "an invented hour",
        "Boarding for HAT021 starts at 3 pm.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("time", "3 pm"),),
        known_miss="3 pm is the clock's time (15:00 in the system prompt, C1), which supports "
        "saying what time it is now",
    ),
    Case(
        "an invented payment id in words",
        "I will refund it to your gift card 4417210.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("payment_id", "gift card 4417210"),),
    ),
    Case(
        "invented last digits",
        "I will charge your Visa ending in 9931.",
        customer=(EMMA,),
        tools=(EMMA_PROFILE,),
        invented=(("payment_id", "ending in 9931"),),
    ),
    Case(
        "an invented flight in words",
        "Your connection is flight 777 from Seattle.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("flight_number", "flight 777"),),
    ),
    Case(
        "an invented certificate number",
        "You can use certificate number 5550123 on your next booking.",
        customer=(ARJUN,),
        tools=(ARJUN_PROFILE,),
        invented=(("payment_id", "certificate number 5550123"),),
    ),
    Case(
        "invented ids of each kind",
        "Your reservation Q7ZZ2K on HAT999 for john_doe_1234 was paid with gift_card_1111111 "
        "and departs on 2024-05-19.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(
            ("reservation_id", "Q7ZZ2K"),
            ("flight_number", "HAT999"),
            ("user_id", "john_doe_1234"),
            ("payment_id", "gift_card_1111111"),
            ("date", "2024-05-19"),
        ),
    ),
    Case(
        "an invented date in words",
        "Your return flight is on June 3rd.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("date", "June 3rd"),),
    ),
    Case(
        "a story of a whole cancellation",
        "I looked up EHGLP3, cancelled it, and refunded the full $208. The refund has been "
        "processed to credit_card_5832574.",
        customer=(EMMA,),
        invented=(
            ("claimed_action", "I looked up"),
            ("claimed_action", "cancelled it"),
            ("claimed_action", "refunded the"),
            ("amount", "$208"),
            ("claimed_action", "refund has been processed"),
            ("payment_id", "credit_card_5832574"),
        ),
    ),
    Case(
        "a passive booking with an invented id",
        "Your booking has been made: reservation ZX81PQ, HAT156 on 2024-05-20.",
        customer=("Book HAT156 on 2024-05-20 for me, emma_kim_9957.",),
        tools=(PHX_SEA,),
        invented=(("claimed_action", "booking has been made"), ("reservation_id", "ZX81PQ")),
    ),
    Case(
        "a delay certificate used as an amount",
        "Because of the delay I am giving you $50 off your next trip.",
        customer=("HAT156 was delayed. emma_kim_9957",),
        tools=(HAT156_STATUS,),
        invented=(("amount", "$50"),),
    ),
    Case(
        "a transfer told in the present, no call",
        "I'm transferring you to a specialist now.",
        customer=("This is too complicated.",),
        invented=(("claimed_action", "I'm transferring"),),
    ),
    Case(
        "rebooked, no call",
        "I was able to rebook you on HAT156 on May 21 at no charge.",
        customer=("Move EHGLP3 to May 21.",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "rebook"),),
    ),
    Case(
        "a reservation updated, no call",
        "Your reservation EHGLP3 has been updated with the new passenger details.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("claimed_action", "has been updated"),),
    ),
    Case(
        "a refund processed, no call",
        "I've gone ahead and processed your refund of $208 to the original card.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("claimed_action", "processed your refund"),),
    ),
    Case(
        "a successful booking, no call",
        "I have successfully booked your flight HAT156 for 2024-05-20.",
        customer=("Book me on HAT156 on 2024-05-20.",),
        tools=(PHX_SEA,),
        invented=(("claimed_action", "booked"),),
    ),
    Case(
        "a voucher issued, no call",
        "I've sent you a travel voucher of $100 to make up for the delay.",
        customer=("HAT156 was late. emma_kim_9957",),
        tools=(HAT156_STATUS,),
        invented=(("claimed_action", "sent you a travel voucher"), ("amount", "$100")),
    ),
    Case(
        "an invented seat count and price",
        "Only 2 business seats are left on HAT156, at $299 each.",
        customer=("Business on HAT156 on May 20?",),
        tools=(PHX_SEA,),
        invented=(("amount", "$299"),),
    ),
    Case(
        "an invented status time",
        "HAT021 is now expected to depart at 11:15 instead of its scheduled time.",
        customer=(EMMA,),
        tools=(EHGLP3,),
        invented=(("time", "11:15"),),
    ),
    Case(
        "an invented reservation id with its cue",
        "I found another booking under your name, confirmation code LQ4N7T.",
        customer=(EMMA,),
        tools=(EMMA_PROFILE,),
        invented=(("reservation_id", "LQ4N7T"),),
    ),
    # -- issue 21 item: the other writes, and what no tool may do, claimed -------------
    Case(
        "a cabin change claimed, no call",
        "I've switched your cabin to business for both flights on RLIVUH.",
        customer=(MATEO, "Business please."),
        tools=(RLIVUH,),
        invented=(("claimed_action", "I've switched your cabin"),),
    ),
    Case(
        "a cabin upgraded, passive, no call",
        "Good news: your cabin has been upgraded to business on RLIVUH.",
        customer=(MATEO,),
        tools=(RLIVUH,),
        invented=(("claimed_action", "cabin has been upgraded"),),
    ),
    Case(
        "a payment claimed, no call",
        "I've processed the payment with your gift card gift_card_9562694.",
        customer=(EMMA, "Use my gift card."),
        tools=(EMMA_PROFILE,),
        invented=(("claimed_action", "I've processed the payment"),),
    ),
    Case(
        "a payment completed, passive, no call",
        "Your payment has been completed and the booking is on its way.",
        customer=("Book HAT156 on May 20, emma_kim_9957.",),
        tools=(PHX_SEA,),
        invented=(("claimed_action", "payment has been completed"),),
    ),
    Case(
        "insurance added after booking",
        "I've added travel insurance to EHGLP3, so you are covered if you fall ill.",
        customer=("Add insurance to EHGLP3 please. emma_kim_9957",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I've added travel insurance"),),
    ),
    Case(
        "a bag removed",
        "I've removed one checked bag from RLIVUH.",
        customer=("Please remove one of my bags from RLIVUH. mateo_ito_1609",),
        tools=(RLIVUH,),
        invented=(("claimed_action", "I've removed one checked bag"),),
    ),
    Case(
        "a bag removed after a bag call",
        "Done: your bags have been removed from RLIVUH, and the second bag stays free.",
        customer=(MATEO, "Remove the bags again."),
        tools=(RLIVUH, BAGS_ADDED),
        invented=(("claimed_action", "bags have been removed"),),
    ),
    Case(
        "insurance removed",
        "I've removed the travel insurance from GWL0HE.",
        customer=(HARPER, "I don't want the insurance."),
        tools=(GWL0HE,),
        invented=(("claimed_action", "I've removed the travel insurance"),),
    ),
    Case(
        "a passenger added",
        "I've added your son Liam to EHGLP3 as a third passenger.",
        customer=("Can you add my son Liam to EHGLP3? emma_kim_9957",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I've added your son Liam to"),),
    ),
    Case(
        "a passenger removed after a passenger call",
        "I removed Anya Silva from the reservation EHGLP3, so only Evelyn Taylor flies.",
        customer=(EMMA, "Anya can't come."),
        tools=(EHGLP3, GWL0HE_RENAMED),
        invented=(("claimed_action", "I removed Anya Silva from the reservation"),),
    ),
    Case(
        "a basic economy flight changed",
        "I've changed your basic economy flights on EHGLP3 to May 24.",
        customer=("Move EHGLP3 to May 24. emma_kim_9957",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I've changed your basic economy flights"),),
    ),
    Case(
        "a refund to another card",
        "I've refunded the $523 to your Visa instead of the gift card.",
        customer=(HARPER, "Send the refund to my Visa."),
        tools=(GWL0HE, GWL0HE_CANCELLED),
        invented=(("claimed_action", "I've refunded the $523 to your Visa instead of"),),
    ),
    Case(
        "a refund as a certificate",
        "Your refund of $523 has been issued as a travel certificate.",
        customer=(HARPER, "Yes, cancel it."),
        tools=(GWL0HE, GWL0HE_CANCELLED),
        invented=(("claimed_action", "refund of $523 has been issued as a travel certificate"),),
    ),
    Case(
        "a destination changed",
        "I've changed your destination to Boston on EHGLP3.",
        customer=("Can EHGLP3 go to Boston instead? emma_kim_9957",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I've changed your destination"),),
    ),
    Case(
        "a trip type converted",
        "I converted your one-way trip EHGLP3 into a round trip.",
        customer=("Make EHGLP3 a round trip. emma_kim_9957",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I converted your one-way trip"),),
    ),
    Case(
        "a fee waived",
        "I've waived the bag fee for you this time.",
        customer=(MATEO,),
        tools=(RLIVUH,),
        invented=(("claimed_action", "I've waived the bag fee"),),
    ),
    Case(
        "a discount applied",
        "I applied a discount to your new booking on HAT156.",
        customer=("Book HAT156 on May 20, emma_kim_9957.",),
        tools=(PHX_SEA,),
        invented=(("claimed_action", "I applied a discount"),),
    ),
    Case(
        "a seat assigned",
        "I've assigned you seat 14C on HAT156.",
        customer=("A window seat on HAT156 please. emma_kim_9957",),
        tools=(PHX_SEA,),
        invented=(("claimed_action", "I've assigned you seat 14C"),),
    ),
    Case(
        "a confirmation email sent",
        "I've sent a confirmation email with the details to your address on file.",
        customer=(EMMA, "Email me the details."),
        tools=(EMMA_PROFILE,),
        invented=(("claimed_action", "I've sent a confirmation email"),),
    ),
    Case(
        "a profile changed",
        "I've updated your email address to emma.new@example.com.",
        customer=(EMMA, "My email is emma.new@example.com now."),
        tools=(EMMA_PROFILE,),
        invented=(("claimed_action", "I've updated your email address"),),
    ),
    Case(
        "a card added to the profile",
        "I've added a new credit card to your profile for future bookings.",
        customer=(EMMA,),
        tools=(EMMA_PROFILE,),
        invented=(("claimed_action", "I've added a new credit card to your profile"),),
    ),
    Case(
        "a meal arranged",
        "I've requested a vegetarian meal for both passengers on EHGLP3.",
        customer=("I need a vegetarian meal on EHGLP3.",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "I've requested a vegetarian meal"),),
    ),
    Case(
        "a fare held",
        "I've put a hold on the fare for HAT156 until tomorrow.",
        customer=("Can you hold HAT156 on May 20 for me?",),
        tools=(PHX_SEA,),
        invented=(("claimed_action", "I've put a hold on the fare"),),
    ),
    Case(
        "moved to a flight, no call",
        "We moved you to HAT156 on May 20 at no extra cost.",
        customer=("Move me to HAT156 on May 20. emma_kim_9957",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "We moved you to HAT156"),),
    ),
    Case(
        "a passenger added, passive, no booking",
        "A passenger has been added to EHGLP3, so three of you fly.",
        customer=("Add my son to EHGLP3. emma_kim_9957",),
        tools=(EHGLP3,),
        invented=(("claimed_action", "passenger has been added"),),
    ),
)
