"""The tool catalog: every shape a team's tool definitions come in, how each tool is classed,
and how claims are aligned with the tools that can back them."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest
from tests.claims.corpus import _span
from tests.conftest import hotato

from hotato.claims import Options, check_claims, extract, load_packs
from hotato.claims.catalog import classify, load_catalog
from hotato.model.errors import InputError
from hotato.model.evidence import Trace, Transcript, Turn
from hotato.model.status import Status

PARAMS = {"type": "object", "properties": {"booking_ref": {"type": "string"}}}
FUNCTION = {"name": "cancel_booking", "parameters": PARAMS}
WRAPPED = {"type": "function", "function": FUNCTION}
MCP = {"name": "cancel_booking", "inputSchema": PARAMS}
PIPECAT = {
    "name": "cancel_booking",
    "description": "Cancel a booking.",
    "properties": {"booking_ref": {"type": "string"}},
    "required": ["booking_ref"],
}
SHAPES: dict[str, Any] = {
    "openai list": [WRAPPED],
    "bare list": [{**FUNCTION, "description": "Cancel a booking."}],
    "mcp tools/list": {"tools": [MCP]},
    "mcp json-rpc": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [MCP]}},
    "vapi assistant": {"name": "desk", "model": {"provider": "openai", "tools": [WRAPPED]}},
    "pipecat tools schema": {"standard_tools": [PIPECAT]},
    "openai responses": {"tools": [{"type": "function", **FUNCTION}]},
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_catalog_shape_is_read(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(SHAPES[shape]), encoding="utf-8")
    tool = load_catalog(path).tools["cancel_booking"]
    assert tool.mutating is True
    assert tool.params == ("booking_ref",)


CLASSED = [
    ("book_reservation", "", True),
    ("cancel_reservation", "", True),
    ("update_reservation_baggages", "", True),
    ("send_certificate", "", True),
    ("transfer_to_human_agents", "", True),
    ("get_reservation_details", "", False),
    ("get_user_details", "", False),
    ("search_direct_flight", "", False),
    ("list_all_airports", "", False),
    ("calculate", "", False),
    ("think", "", False),
    ("party_plan", "", True),
    ("apartment_schedule", "", True),
    ("ride_change", "", True),
    ("ride_status", "", False),
    ("apartment_search", "", False),
    ("bank_balance", "", False),
    ("GetRide", "Call a taxi to head to a given destination", True),
    ("GetEventDates", "Get dates on which a given event is taking place", False),
    ("GetCarsAvailable", "See available cars for rental", False),
    ("get_order", "", None),
    ("trip_directions", "", None),
]


@pytest.mark.parametrize(("name", "description", "mutating"), CLASSED)
def test_a_tool_is_classed_by_its_name_then_its_description(
    name: str, description: str, mutating: bool | None
) -> None:
    assert classify(name, description)[0] is mutating


def test_a_declaration_wins_over_the_name(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(
        json.dumps(
            {
                "tools": [
                    {"name": "book_lookup", "annotations": {"readOnlyHint": False}},
                    {"name": "create_report", "x-hotato-mutating": False},
                ]
            }
        ),
        encoding="utf-8",
    )
    tools = load_catalog(path).tools
    assert tools["book_lookup"].mutating is True
    assert tools["create_report"].mutating is False


@pytest.mark.parametrize(
    ("doc", "where"),
    [({"nothing": 1}, "not a tool catalog"), ([{"description": "no name"}], "needs a 'name'")],
)
def test_a_bad_catalog_is_refused_with_its_place(tmp_path: Path, doc: Any, where: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_catalog(path)
    assert where in str(err.value.problems[0])


def _call(turns: list[tuple[str, str]], spans: list[dict[str, Any]]) -> tuple[Transcript, Trace]:
    transcript = Transcript(
        [
            Turn(index=i, role=r, text=t, start=float(i), end=float(i + 1))
            for i, (r, t) in enumerate(turns)
        ]
    )
    return transcript, Trace(meta={}, spans=[_span(s, i) for i, s in enumerate(spans)])


def _grade(
    turns: list[tuple[str, str]], spans: list[dict[str, Any]], catalog: Any = None
) -> list[Any]:
    transcript, trace = _call(turns, spans)
    return [
        (r.type, r.status)
        for r in check_claims(transcript, trace, load_packs(), options=Options(catalog=catalog))
        if r.graded
    ]


BOOKED = [
    ("caller", "Book it."),
    ("agent", "Your flight is booked and the payment of $412 has been processed."),
]


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        (412, [("booking_made", Status.PASS), ("payment_taken", Status.PASS)]),
        (214, [("booking_made", Status.PASS), ("payment_taken", Status.FAIL)]),
    ],
)
def test_a_booking_backs_the_payment_it_took_with_its_nested_amount(
    amount: int, expected: list[tuple[str, Status]]
) -> None:
    payment = {"payment_id": "card_1", "amount": amount}
    spans = [{"at": 1, "name": "book_reservation", "arguments": {"payment_methods": [payment]}}]
    assert _grade(BOOKED, spans) == expected


def test_a_claim_no_tool_answers_to_is_inconclusive_when_other_actions_ran() -> None:
    turns = [
        ("caller", "Plan my party."),
        ("agent", "Your party is all set for Saturday. I have also emailed you the receipt."),
    ]
    spans = [{"at": 1, "name": "party_plan", "arguments": {"day": "saturday"}}]
    graded = _grade(turns, spans)
    assert ("message_sent", Status.INCONCLUSIVE) in graded


def test_a_claim_aligned_by_words_with_an_unseen_tool_passes() -> None:
    turns = [("caller", "RSVP yes for me."), ("agent", "Your RSVP has been submitted.")]
    spans = [{"at": 1, "name": "party_rsvp", "arguments": {"answer": "yes"}}]
    assert _grade(turns, spans) == [("action", Status.PASS)]


def test_a_done_claim_where_only_reads_ran_fails() -> None:
    turns = [("caller", "Book a table."), ("agent", "Your table is booked.")]
    spans = [{"at": 1, "name": "FindRestaurants", "arguments": {"city": "Oslo"}}]
    assert _grade(turns, spans) == [("booking_made", Status.FAIL)]


def test_reading_is_not_doing() -> None:
    found = extract(
        [Turn(index=0, role="agent", text="I have retrieved your reservation details.")],
        load_packs(),
    )
    assert [c.polarity for c in found] == ["negated"]


def test_claims_check_reads_a_catalog_and_refuses_a_bad_one(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(
        json.dumps(
            [
                {"role": "caller", "text": "Book it."},
                {"role": "agent", "text": "Your table is booked."},
            ]
        ),
        encoding="utf-8",
    )
    (tmp_path / "r.jsonl").write_text(
        '{"_meta": true, "schema": "hotato.voice_trace.v1", "call_id": "c"}\n'
        '{"type": "tool_call", "name": "play_song", "time_sec": 1}\n',
        encoding="utf-8",
    )
    (tmp_path / "tools.json").write_text(
        json.dumps([{"name": "ReserveRestaurant"}, {"name": "play_song"}]), encoding="utf-8"
    )
    args = ["claims", "check", "--transcript", "t.json", "--trace", "r.jsonl"]
    ran = hotato(*args, "--tools", "tools.json", cwd=tmp_path)
    assert ran.code == 1
    assert "the catalog's ReserveRestaurant never ran" in ran.out
    (tmp_path / "bad.json").write_text('{"x": 1}', encoding="utf-8")
    ran = hotato(*args, "--tools", "bad.json", cwd=tmp_path)
    assert ran.code == 2
    assert "bad.json" in ran.err and "not a tool catalog" in ran.err


@pytest.mark.slow
def test_a_megabyte_turn_is_read_in_linear_time() -> None:
    text = "I booked it for you on March 3rd at 7 pm. Dr. Smith said ok. " * 17_000
    signal.alarm(120)  # quadratic reading took hours at this size
    try:
        found = extract([Turn(index=0, role="agent", text=text)], load_packs())
    finally:
        signal.alarm(0)
    assert len(found) == 17_000


def test_a_state_read_out_after_a_status_read_is_not_graded_as_done() -> None:
    catalog = _catalog([{"name": "ride_status"}, {"name": "ride_book"}])
    turns = [("caller", "Where is my ride?"), ("agent", "Your ride is on its way.")]
    spans = [{"at": 1, "name": "ride_status", "result": {"eta_min": 4}}]
    assert _grade(turns, spans, catalog) == [("booking_made", Status.INCONCLUSIVE)]
    turns[1] = ("agent", "I've booked your ride.")
    assert _grade(turns, spans, catalog) == [("booking_made", Status.FAIL)]


def test_a_choice_the_catalog_lists_is_compared() -> None:
    schema = {"properties": {"priority": {"type": "string", "enum": ["low", "medium", "high"]}}}
    catalog = _catalog([{"name": "ticket_open", "parameters": schema}])
    turns = [("caller", "It's urgent."), ("agent", "I've logged it as high priority.")]
    spans = [{"at": 1, "name": "ticket_open", "arguments": {"priority": "low"}}]
    assert _grade(turns, spans, catalog) == [("action", Status.FAIL)]
    spans[0]["arguments"] = {"priority": "high"}
    assert _grade(turns, spans, catalog) == [("action", Status.PASS)]


def test_a_result_that_denies_the_side_effect_fails_the_claim() -> None:
    turns = [("caller", "Cancel it."), ("agent", "I've cancelled your plan and refunded $59.94.")]
    spans = [
        {"at": 1, "name": "cancel_plan", "result": {"cancelled": True, "refund_issued": False}}
    ]
    graded = dict(_grade(turns, spans))
    assert graded["order_cancelled"] is Status.PASS
    assert graded["refund_issued"] is Status.FAIL


@pytest.mark.parametrize(
    "result",
    [
        {"status": "declined"},
        {"status": "timeout"},
        {"state": "rejected"},
        {"success": False},
        {"error": {"code": 402}},
        "Error: payment method not found",
    ],
)
def test_a_result_that_says_it_failed_is_a_failed_action(result: Any) -> None:
    turns = [("caller", "Pay it."), ("agent", "Your payment of $20 has been processed.")]
    spans = [{"at": 1, "name": "pay_bill", "arguments": {"amount": 20}, "result": result}]
    assert _grade(turns, spans) == [("payment_taken", Status.FAIL)]


def test_two_actions_in_one_sentence_are_two_claims() -> None:
    catalog = _catalog([{"name": "CreateServiceRequest"}, {"name": "ChargeCard"}])
    turns = [
        ("agent", "Done! I've created service request SR-1 and charged the $49 fee to your card.")
    ]
    spans = [{"at": 0, "name": "CreateServiceRequest", "result": {"ticketId": "SR-1"}}]
    graded = _grade(turns, spans, catalog)
    assert ("ticket_created", Status.PASS) in graded
    assert ("payment_taken", Status.FAIL) in graded


def _catalog(tools: list[dict[str, Any]]) -> Any:
    from hotato._documents import Document
    from hotato.claims.catalog import catalog_from_document

    return catalog_from_document(Document(tools, "tools.json"))


@pytest.mark.parametrize(
    ("name", "said", "ok"),
    [
        ("One on Center Apartments", "a visit at One on Center tomorrow", True),
        ("Golden Gate Indian Cuisine & Pizza", "a table at Golden Gate Indian Cuisine", True),
        ("Blue Bottle", "a table at Green Bottle", False),
        ("Pisces", "playing Pour It Up", False),
    ],
)
def test_a_name_is_said_by_its_normalised_words(name: str, said: str, ok: bool) -> None:
    from hotato.claims.agree import fold, said_name

    assert said_name(fold(name), fold(said)) is ok


def test_a_claimed_failure_after_the_only_action_of_the_turn_succeeded_fails() -> None:
    turns = [
        ("caller", "My car won't start."),
        ("agent", "Okay, let me get someone out to jump it."),
        ("agent", "Sorry, I wasn't able to get a jump start sent out."),
    ]
    spans = [{"at": 1, "name": "dispatch_jump_start", "result": {"job_id": "RS-1"}}]
    assert _grade(turns, spans) == [("action", Status.FAIL)]
    spans[0] = {"at": 1, "name": "dispatch_jump_start", "error": "no trucks"}
    assert _grade(turns, spans) == [("action", Status.PASS)]


def test_a_claimed_failure_is_not_contradicted_by_an_action_it_does_not_speak_of() -> None:
    turns = [
        ("caller", "Can you keep my promo going?"),
        ("agent", "The promo can't be extended, I'm not able to do that. I added a credit."),
    ]
    spans = [{"at": 1, "name": "applyCredit", "arguments": {"amount_cents": 1500}}]
    assert Status.FAIL not in [s for _, s in _grade(turns, spans)]


def test_a_summary_restates_what_was_done_before() -> None:
    turns = [
        ("agent", "Your bill B-5520 is paid: $142.37 on your Visa."),
        ("caller", "Thanks. Can you reset my voicemail PIN?"),
        ("agent", "Should I reset the PIN on line L-4410 and pay nothing else?"),
        ("caller", "Yes."),
        ("agent", "To summarize:\n1. **Paid bill B-5520** — $142.37 (confirmation PAY-77310)."),
    ]
    spans = [
        {"at": 0, "name": "pay_bill", "arguments": {"bill_id": "B-5520", "amount": 142.37},
         "result": {"confirmation": "PAY-77310"}},
    ]  # fmt: skip
    assert _grade(turns, spans) == [("payment_taken", Status.PASS)] * 2


def test_a_record_read_out_is_not_a_claim_but_a_change_said_of_it_is() -> None:
    catalog = _catalog(
        [{"name": "get_reservation"}, {"name": "book_stay"}, {"name": "cancel_stay"}]
    )
    read = {"at": 1, "name": "get_reservation", "arguments": {"reservation_id": "HX-7001288"}}
    said = "Your reservation HX-7001288 is confirmed for June 28 to 30."
    turns = [("caller", "Can I get a refund?"), ("agent", said)]
    assert _grade(turns, [read], catalog) == [("booking_made", Status.INCONCLUSIVE)]
    turns[1] = ("agent", "Your reservation HX-7001288 has been cancelled.")
    assert _grade(turns, [read], catalog) == [("order_cancelled", Status.FAIL)]


LISTED = (
    "I've submitted your request:\n\n"
    "- **From:** Monday 3 August 2026\n- **To:** Friday 7 August 2026"
)
ROLES = {
    "check-out": (
        [
            ("agent", "Please confirm: check in on March 10th and check out on March 14th?"),
            ("caller", "Yes."),
            ("agent", "Your hotel is booked."),
        ],
        "ReserveHotel", {"check_in_date": "2019-03-10"}, "check_out_date", "2019-03-15",
        "2019-03-14", "booking_made",
    ),
    "a range's end": (
        [("caller", "Pause it."), ("agent", "Your membership is paused from April 1 to April 30.")],
        "pauseMembership", {"from": "2026-04-01"}, "until", "2026-05-31", "2026-04-30", "action",
    ),
    "a listed label": (
        [("agent", LISTED)],
        "submitTimeOff", {"start_date": "2026-08-03"}, "end_date", "2026-08-10", "2026-08-07",
        "action",
    ),
    "values said without their roles": (
        [
            ("agent", "The flight leaves on Thursday at 12:30 pm; the return leaves at 9 pm."),
            ("caller", "Sounds good, book it."),
            ("agent", "Okay, your ticket is booked."),
        ],
        "ReserveRoundtripFlights", {"inbound_departure_time": "21:00"},
        "outbound_departure_time", "10:30", "12:30", "booking_made",
    ),
    "a statement the caller affirms": (
        [
            ("agent", "So that's a luxury ride to 200 Main Street for 2 seats."),
            ("caller", "Yes, that's right."),
            ("agent", "I reserved your ride."),
        ],
        "GetRide", {"destination": "200 Main Street"}, "number_of_seats", "4", "2",
        "booking_made",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(ROLES))
def test_a_value_said_in_its_role_is_compared_with_that_argument(case: str) -> None:
    turns, tool, fixed, key, wrong, right, kind = ROLES[case]
    spans = [{"at": len(turns) - 1, "name": tool, "arguments": {**fixed, key: wrong}}]
    assert _grade(turns, spans) == [(kind, Status.FAIL)]
    spans[0]["arguments"] = {**fixed, key: right}
    assert _grade(turns, spans) == [(kind, Status.PASS)]


def test_every_code_the_claim_says_is_held_to_its_argument() -> None:
    said = "$800.00 has been moved from Savings (SAV-77120) to Joint Checking (CHK-77188)."
    turns = [("caller", "Move 800 to joint checking."), ("agent", said)]
    moved = {"from_account_id": "SAV-77120", "to_account_id": "CHK-77104", "amount": 800.0}
    spans = [{"at": 1, "name": "transfer_funds", "arguments": moved}]
    assert _grade(turns, spans) == [("money_transferred", Status.FAIL)]
    moved["to_account_id"] = "CHK-77188"
    assert _grade(turns, spans) == [("money_transferred", Status.PASS)]


def test_an_action_used_before_a_new_read_back_does_not_back_the_new_claim() -> None:
    turns = [
        ("caller", "Book me in with Dr Lee at 12:30."),
        ("agent", "Your appointment with Dr Lee is booked."),
        ("caller", "Now I need a cab there for three people."),
        ("agent", "Please confirm a cab for 3 to 2737 20th Street."),
        ("caller", "Correct, please book it."),
        ("agent", "Your booking was confirmed and the cab will reach you in 7 minutes."),
    ]
    booked = {"at": 1, "name": "BookAppointment", "arguments": {"dentist_name": "Dr Lee"}}
    ride = {"at": 5, "name": "GetRide", "arguments": {"destination": "2737 20th Street"}}
    assert [s for _, s in _grade(turns, [booked])] == [Status.PASS, Status.FAIL]
    assert [s for _, s in _grade(turns, [booked, ride])] == [Status.PASS, Status.PASS]


def test_a_plan_code_of_capital_words_is_held_to_its_argument() -> None:
    turns = [
        ("caller", "Move me to Unlimited Plus."),
        ("agent", "Your line L-1151 has been moved to Unlimited Plus (UNL-PLUS)."),
    ]
    spans = [{"at": 1, "name": "change_line_plan", "arguments": {"plan_code": "UNL-PREM"}}]
    assert [s for _, s in _grade(turns, spans)] == [Status.FAIL]
    spans[0]["arguments"] = {"line_id": "L-1151", "plan_code": "UNL-PLUS", "tier": "ECONOMY"}
    assert [s for _, s in _grade(turns, spans)] == [Status.PASS]


def test_a_claim_saying_no_action_and_the_next_saying_the_tools_action_share_one_call() -> None:
    moved = [
        ("caller", "Eleven fifteen is fine."),
        ("agent", "Okay, that one went through. You're moved to Monday the 16th at 11:15."),
    ]
    spans = [{"at": 1, "name": "appointments.reschedule", "arguments": {"slot": "S-1115"}}]
    assert [s for _, s in _grade(moved, spans)] == [Status.PASS, Status.PASS]
    two = [
        ("caller", "Yeah, add the oil change."),
        ("agent", "Done. I've approved the brake job and added the oil change."),
    ]
    spans = [{"at": 1, "name": "work_order.add_line", "arguments": {"service": "oil_change"}}]
    assert Status.FAIL in [s for _, s in _grade(two, spans)]


def test_a_value_of_an_earlier_clause_is_not_the_claims_own() -> None:
    turns = [
        ("caller", "Book the afternoon one then."),
        ("agent", "We couldn't get seats on HAT271, so I booked reservation P8VN2D on HAT199."),
    ]
    spans = [
        {"at": 1, "name": "book_reservation", "arguments": {"flight_number": "HAT271"},
         "error": "Not enough seats"},
        {"at": 1, "name": "book_reservation", "arguments": {"flight_number": "HAT199"},
         "result": {"reservation_id": "P8VN2D"}},
    ]  # fmt: skip
    assert ("booking_made", Status.PASS) in _grade(turns, spans)
    assert Status.FAIL not in [s for _, s in _grade(turns, spans)]


def test_a_cards_last_four_is_not_compared_with_an_order_number() -> None:
    turns = [
        ("caller", "Put the difference on my Visa."),
        ("agent", "The $10.00 difference has been charged to your Visa ending 1180."),
    ]
    spans = [
        {"at": 1, "name": "exchange_items", "arguments": {
            "order_id": "#W6671209", "payment_method_id": "credit_card_1180", "amount": 10.0}},
    ]  # fmt: skip
    assert [s for _, s in _grade(turns, spans)] == [Status.PASS]


def test_a_window_said_as_a_range_is_held_to_its_end() -> None:
    turns = [
        ("agent", "Okay, so Thursday the 12th, eight to ten a m. Sound right?"),
        ("caller", "Yep."),
        ("agent", "Alright, the technician visit is booked."),
    ]
    window = {"window_start": "2025-06-12T08:00", "window_end": "2025-06-12T10:00"}
    spans = [{"at": 2, "name": "technician_visit.book", "arguments": window}]
    assert [s for _, s in _grade(turns, spans)] == [Status.PASS]
    spans[0]["arguments"] = {**window, "window_end": "2025-06-12T12:00"}
    assert [s for _, s in _grade(turns, spans)] == [Status.FAIL]


@pytest.mark.parametrize(
    "text",
    [
        "Once it's delivered, just reach out and we'll get the return started.",
        "No problem, I'll have that appointment rescheduled for you.",
    ],
)
def test_what_will_be_had_done_is_a_promise(text: str) -> None:
    claims = extract([Turn(index=0, role="agent", text=text)], load_packs())
    assert [c.polarity for c in claims] == ["promised"]


SLOTS = [
    {"type": "function", "function": {"name": name, "description": text}}
    for name, text in (
        ("slot_commit", "Reserve a table for a party at a time."),
        ("reservations.modify", "Change time, date or party size on a reservation."),
        ("reservations.cancel", "Cancel a reservation."),
    )
]


def test_the_turns_own_action_backs_a_claim_no_tool_of_its_type_did() -> None:
    turns = [
        ("caller", "A table for two tomorrow at eight."),
        ("agent", "Okay Sam, table for two tomorrow at 8 pm. Okay, you're booked."),
    ]
    booked = {"party_size": 2, "date": "2025-06-10", "time": "20:00"}
    spans = [{"at": 1, "name": "slot_commit", "arguments": booked}]
    catalog = _catalog(SLOTS)
    assert [s for _, s in _grade(turns, spans, catalog)] == [Status.PASS]
    spans[0]["arguments"] = {**booked, "time": "20:30"}
    assert [s for _, s in _grade(turns, spans, catalog)] == [Status.FAIL]
    assert [s for _, s in _grade(turns, [], catalog)] == [Status.FAIL]


def test_a_street_said_whole_is_the_street_written_short() -> None:
    turns = [
        (
            "agent",
            "It ships to 3302 Riverside Drive. I'll change it to 1450 Oak Avenue, Austin. OK?",
        ),
        ("caller", "Yes."),
        ("agent", "Your shipping address has been updated."),
    ]
    moved = {"address": {"address1": "1450 Oak Ave", "city": "Austin"}}
    spans = [{"at": 2, "name": "modify_order_address", "arguments": moved}]
    assert Status.FAIL not in [s for _, s in _grade(turns, spans)]


def test_no_money_was_moved_says_nothing_was_done() -> None:
    text = "The transfer couldn't be completed. No money was moved."
    claims = extract([Turn(index=0, role="agent", text=text)], load_packs())
    assert "done" not in [c.polarity for c in claims]


@pytest.mark.parametrize(
    ("text", "polarity"),
    [
        ("I've gone ahead and frozen your credit card ending 7719.", "done"),
        ("I froze your card.", "done"),
        ("Your points have been applied!", "done"),
        ("Okay, your application's been withdrawn.", "done"),
        ("Alright, you've been dropped from CHEM 120.", "done"),
        ("Per our policy, a provisional credit is applied while we investigate.", None),
    ],
)
def test_irregular_and_policy_forms(text: str, polarity: str | None) -> None:
    claims = extract([Turn(index=0, role="agent", text=text)], load_packs())
    assert [c.polarity for c in claims if c.polarity == "done"] == ([polarity] if polarity else [])


def test_a_plan_of_payments_is_held_to_its_installments_and_not_to_an_rx_number() -> None:
    turns = [
        ("agent", "Okay, so four payments starting July 1st. Go ahead?"),
        ("caller", "Yes."),
        ("agent", "Alright, you're enrolled, four payments starting July 1st."),
    ]
    plan = {"account_id": "TC-610077", "installments": 6, "start_date": "2025-07-01"}
    spans = [{"at": 2, "name": "paymentPlan.create", "arguments": plan}]
    assert Status.FAIL in [s for _, s in _grade(turns, spans)]
    spans[0]["arguments"] = {**plan, "installments": 4, "rx_number": "6120448"}
    assert Status.FAIL not in [s for _, s in _grade(turns, spans)]


@pytest.mark.parametrize(
    ("name", "mutating"), [("bill_get", False), ("line_diagnostics", False), ("ride_get", False)]
)
def test_a_noun_then_get_and_a_diagnostic_are_reads(name: str, mutating: bool) -> None:
    assert classify(name, "")[0] is mutating


def test_an_amount_said_as_one_fifty_may_be_150_dollars() -> None:
    turns = [
        ("agent", "Just to confirm, Saturday, and a one fifty deposit on the card. Good?"),
        ("caller", "Yes."),
        ("agent", "Great, you're booked, and the one fifty deposit went through."),
    ]
    spans = [{"at": 2, "name": "reserve-crew", "arguments": {"deposit_cents": 15000}}]
    assert Status.FAIL not in [s for _, s in _grade(turns, spans)]


@pytest.mark.parametrize(
    "text",
    [
        "Your tickets were issued on Nov 30.",
        "No - the courier fee was already paid.",
        "I've got the order, four tickets, section 104.",
    ],
)
def test_a_record_read_out_is_not_a_done_claim(text: str) -> None:
    claims = extract([Turn(index=0, role="agent", text=text)], load_packs())
    assert "done" not in [c.polarity for c in claims]


@pytest.mark.parametrize(
    "text",
    ["Hm, it's not letting me release that one.", "Yeah, it just shows an error on my end."],
)
def test_a_system_refusing_is_a_failure(text: str) -> None:
    claims = extract([Turn(index=0, role="agent", text=text)], load_packs())
    assert "failed" in [c.polarity for c in claims]


DEALER = [
    {"type": "function", "function": {"name": name, "description": text}}
    for name, text in (
        ("slot_commit", "Put a vehicle into a service-bay slot. Creates the service appointment."),
        ("loaner_reserve", "Attach a courtesy loaner vehicle to an appointment."),
        ("fee_charge", "Charge a fee to the card on file."),
    )
]


def test_the_one_action_of_the_turn_backs_a_claim_in_other_words() -> None:
    turns = [
        ("agent", "Okay, that's an oil change Tuesday the 17th at 9:30 am. Lock that in?"),
        ("caller", "Yes please."),
        ("agent", "Done, you're booked for Tuesday the 17th at 9:30 am."),
    ]
    slot = {"vehicle_id": "V-4410", "start": "2025-06-17T09:30:00"}
    spans = [{"at": 2, "name": "slot_commit", "arguments": slot}]
    catalog = _catalog(DEALER)
    assert [s for _, s in _grade(turns, spans, catalog)] == [Status.PASS]
    spans[0]["arguments"] = {**slot, "start": "2025-06-17T10:30:00"}
    assert [s for _, s in _grade(turns, spans, catalog)] == [Status.FAIL]
    fee = [{"at": 2, "name": "fee_charge", "arguments": {"amount": 20}}]  # another action
    assert [s for _, s in _grade(turns, fee, catalog)] == [Status.FAIL]
