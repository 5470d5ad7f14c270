"""The reservations database: one SQLModel table per thing the airline keeps.

The shape follows the τ²-bench airline data (see ../shared/reference/README.md) but
normalised: lists become child tables with a `position` column so that export gives
back the same order, and every lookup a tool makes has an index.
"""

from __future__ import annotations

from sqlalchemy import Index, String, Table, inspect
from sqlmodel import Field, SQLModel
from sqlmodel.sql.sqltypes import AutoString

FLIGHT_STATUSES = ("available", "on time", "delayed", "flying", "landed", "cancelled")
MEMBERSHIPS = ("regular", "silver", "gold")
PAYMENT_SOURCES = ("credit_card", "gift_card", "certificate")

# Written into the `meta` table; a database without it is not ours. 2: a user's list of
# reservations is kept as τ² keeps it (`UserReservation`), no longer derived.
SCHEMA_VERSION = "2"
APP_MARKER = "airline-agent"
# The fact a build writes in its final transaction, with its last rows (loading.py): a
# database without it was never finished. (`source` names what it was built from.)
COMPLETE_FACT = "source"


class Meta(SQLModel, table=True):
    """Key/value facts about the database itself: schema version, how it was built."""

    key: str = Field(primary_key=True)
    value: str


class Airport(SQLModel, table=True):
    iata: str = Field(primary_key=True, max_length=3)
    city: str
    position: int = 0


class Flight(SQLModel, table=True):
    """A scheduled flight number: the same route and times every day."""

    __table_args__ = (Index("ix_flight_route", "origin", "destination"),)

    flight_number: str = Field(primary_key=True)
    origin: str
    destination: str
    scheduled_departure_time_est: str  # "HH:MM:SS"
    scheduled_arrival_time_est: str  # "HH:MM:SS", may end in "+1" (next day)


class FlightDate(SQLModel, table=True):
    """One flight on one date: its status and, while bookable, seats and prices per cabin."""

    __table_args__ = (Index("ix_flight_date_date_status", "date", "status"),)

    flight_number: str = Field(primary_key=True, foreign_key="flight.flight_number")
    date: str = Field(primary_key=True)  # "YYYY-MM-DD"
    status: str
    seats_basic_economy: int | None = None
    seats_economy: int | None = None
    seats_business: int | None = None
    price_basic_economy: int | None = None
    price_economy: int | None = None
    price_business: int | None = None
    actual_departure_time_est: str | None = None
    actual_arrival_time_est: str | None = None
    estimated_departure_time_est: str | None = None
    estimated_arrival_time_est: str | None = None


class User(SQLModel, table=True):
    user_id: str = Field(primary_key=True)
    first_name: str
    last_name: str
    address1: str
    address2: str | None = None  # τ²'s Optional[str]
    city: str
    country: str
    state: str
    zip: str
    email: str
    dob: str
    membership: str


class PaymentMethod(SQLModel, table=True):
    """A credit card, a gift card (with balance) or a travel certificate (with amount)."""

    __table_args__ = (Index("ix_payment_method_user", "user_id", "position"),)

    user_id: str = Field(primary_key=True, foreign_key="user.user_id")
    payment_id: str = Field(primary_key=True)
    position: int
    source: str
    brand: str | None = None  # credit card only
    last_four: str | None = None  # credit card only
    amount: float | None = None  # gift card balance / certificate amount


class SavedPassenger(SQLModel, table=True):
    user_id: str = Field(primary_key=True, foreign_key="user.user_id")
    position: int = Field(primary_key=True)
    first_name: str
    last_name: str
    dob: str


USER_RESERVATION = "userreservation"  # its table, as plain SQL names it (lookups, loading)


class UserReservation(SQLModel, table=True):
    """An entry of a user's list of reservations, as τ² keeps it on the user
    (`users.X.reservations`, which `get_user_details` returns as it is): the reservations
    the user booked, in order, in a database this project builds; in imported data, any
    list τ²'s model takes (an id of a reservation the user does not hold, or of none: so
    no key to `reservation`). A booking appends its id, as τ²'s does."""

    __tablename__ = USER_RESERVATION

    user_id: str = Field(primary_key=True, foreign_key="user.user_id")
    position: int = Field(primary_key=True)
    reservation_id: str


class Reservation(SQLModel, table=True):
    __table_args__ = (Index("ix_reservation_user", "user_id", "seq"),)

    # `seq` keeps creation order (a user's list, made by a build, follows it).
    seq: int | None = Field(default=None, primary_key=True)
    reservation_id: str = Field(unique=True, index=True)
    user_id: str = Field(foreign_key="user.user_id")
    origin: str
    destination: str
    flight_type: str  # "one_way" | "round_trip"
    cabin: str
    created_at: str  # "YYYY-MM-DDTHH:MM:SS", domain clock
    total_baggages: int
    nonfree_baggages: int
    insurance: str  # "yes" | "no"
    status: str | None = None  # None (active) | "cancelled"


class ReservationFlight(SQLModel, table=True):
    """One segment of a reservation, with the price paid per passenger."""

    __table_args__ = (Index("ix_reservation_flight_flight", "flight_number", "date"),)

    reservation_id: str = Field(primary_key=True, foreign_key="reservation.reservation_id")
    position: int = Field(primary_key=True)
    flight_number: str
    date: str
    origin: str
    destination: str
    price: int


class ReservationPassenger(SQLModel, table=True):
    reservation_id: str = Field(primary_key=True, foreign_key="reservation.reservation_id")
    position: int = Field(primary_key=True)
    first_name: str
    last_name: str
    dob: str


class Payment(SQLModel, table=True):
    """One line of a reservation's payment history; refunds are negative amounts."""

    reservation_id: str = Field(primary_key=True, foreign_key="reservation.reservation_id")
    position: int = Field(primary_key=True)
    payment_id: str
    amount: float


def _text_compares_bytewise() -> None:
    """Every text column compares and sorts byte by byte (COLLATE "C") on PostgreSQL, as
    SQLite's BINARY collation does, whatever the server's default: ids, names and dates
    then sort the same on both (`export` is byte-identical; a customer list, a search
    result comes in the same order), and lower() folds ASCII only, on both."""
    for table in SQLModel.metadata.tables.values():
        for column in table.columns:
            if isinstance(column.type, AutoString):
                column.type = column.type.with_variant(String(collation="C"), "postgresql")


_text_compares_bytewise()


def table_of(model: type[SQLModel]) -> Table:
    """A table model's SQLAlchemy table (what SQLModel sets as its `__table__`, which a
    type checker cannot see)."""
    table = inspect(model).local_table
    assert isinstance(table, Table)
    return table
