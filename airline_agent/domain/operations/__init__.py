"""What the airline can do with its data: the reads and the writes behind the 14 tools.

The semantics are those of the τ²-bench airline tools (same checks, same arithmetic,
same state changes, including their known quirks: cancelling refunds every payment line
but releases no seat and credits no gift card; changing flights moves no seat; the second
leg of a one-stop search on an overnight first leg is looked up on
`<year-month>-<day + 1>` without zero padding). Where the reference would leave a
negative seat count or balance (the same gift card or flight listed twice), we check
the totals instead.

One module per concept:

- `ids`: finding stored ids tolerantly, and the next reservation / certificate id;
- `lookups` and `flights`: the reads, each in one read transaction
  (`database.read()`), customers and reservations in τ² shape (`tau2_shape`, shared
  with export);
- `rows`: what a write reads, once, in its transaction (`WriteRows`);
- `payments`: paying for a booking, charging or refunding a change, certificates;
- `booking` and `amendments` (and `payments.send_certificate`): the writes. Each runs
  in the write transaction its caller opened (`with database.write() as session:`,
  `WriteRows(session)`), on ORM rows read under the write lock, so a failure rolls
  everything back, concurrent writers cannot lose each other's changes, and the change
  recorder sees every row. The caller opens it so that what decides whether the write
  may happen (the tool guard, reading through the same `WriteRows`) sees the same state
  as the write, and the write finds those rows read already: one decision, one state.

Failures raise the precise errors of `errors.py`; the tool layer turns them into results.
This package is the tool layer's one way in: everything it uses is named here.
"""

from airline_agent.domain.operations.amendments import (
    cancel_reservation,
    update_baggages,
    update_flights,
    update_passengers,
)
from airline_agent.domain.operations.booking import book_reservation
from airline_agent.domain.operations.flights import (
    AirportRecord,
    flight_status,
    list_airports,
    search_direct,
    search_onestop,
    second_leg_date,
)
from airline_agent.domain.operations.ids import (
    FIRST_CERTIFICATE_NUMBER,
    FIRST_RESERVATION_ID,
    lookup_key,
    next_certificate_id,
    next_reservation_id,
)
from airline_agent.domain.operations.lookups import (
    get_reservation,
    get_user,
    list_customers,
    reservation_owner,
    resolve_user_id,
)
from airline_agent.domain.operations.payments import send_certificate
from airline_agent.domain.operations.rows import WriteRows
from airline_agent.domain.operations.values import FlightRef, PassengerDetails, PaymentLine

__all__ = [
    "FIRST_CERTIFICATE_NUMBER",
    "FIRST_RESERVATION_ID",
    "AirportRecord",
    "FlightRef",
    "PassengerDetails",
    "PaymentLine",
    "WriteRows",
    "book_reservation",
    "cancel_reservation",
    "flight_status",
    "get_reservation",
    "get_user",
    "list_airports",
    "list_customers",
    "lookup_key",
    "next_certificate_id",
    "next_reservation_id",
    "reservation_owner",
    "resolve_user_id",
    "search_direct",
    "search_onestop",
    "second_leg_date",
    "send_certificate",
    "update_baggages",
    "update_flights",
    "update_passengers",
]
