"""How a claim meets the record when no tool of its own name ran: side effects an action's
record shows, what a summary or a second line of the same turn says again, records named by
code, values an action's result gives, and lines of a list that report a change in a few
words. Each rule is checked on an honest call and on one that lies."""

from __future__ import annotations

from typing import Any

import pytest
from tests.claims.test_catalog import _catalog, _grade

from hotato.claims import extract, load_packs
from hotato.model.evidence import Turn
from hotato.model.status import Status


def _tools(*pairs: tuple[str, str]) -> Any:
    return _catalog(
        [{"type": "function", "function": {"name": n, "description": d}} for n, d in pairs]
    )


def _statuses(turns: list[tuple[str, str]], spans: list[dict[str, Any]], catalog: Any) -> set:
    return {s for _, s in _grade(turns, spans, catalog)}


GYM = _tools(
    ("member_lookup", "Find a member."),
    ("membership_cancel", "Cancel a membership; an early termination fee may be charged."),
    ("class_booking_create", "Book a class for a member."),
)
CANCELLED = [
    ("caller", "Cancel it, I'll pay the fee."),
    ("agent", "Your membership has been cancelled. The $99.00 fee has been charged to your card."),
]


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ({"status": "cancelled", "termination_fee_charged": 99.0}, {Status.PASS}),
        ({"status": "cancelled", "termination_fee_charged": 49.0}, {Status.PASS, Status.FAIL}),
    ],
)
def test_a_fee_the_cancellation_record_holds_backs_the_charge_claim(
    result: dict[str, Any], expected: set
) -> None:
    spans = [{"at": 1, "name": "membership_cancel", "arguments": {"id": "M-1"}, "result": result}]
    assert _statuses(CANCELLED, spans, GYM) == expected


def test_the_same_amount_from_another_kind_of_action_backs_no_refund() -> None:
    catalog = _tools(
        ("send_certificate", "Send a travel certificate."), ("refund_card", "Refund a card.")
    )
    turns = [("caller", "Refund it."), ("agent", "The $100 has been refunded to your Visa.")]
    spans = [{"at": 1, "name": "send_certificate", "arguments": {"amount": 100}, "result": {}}]
    assert _statuses(turns, spans, catalog) == {Status.FAIL}


@pytest.mark.parametrize(("emailed", "expected"), [(True, Status.PASS), (False, Status.FAIL)])
def test_a_result_field_naming_the_claimed_action_backs_it(emailed: bool, expected: Any) -> None:
    catalog = _tools(
        ("proposal_generate", "Generate a revised proposal."),
        ("envelope_dispatch", "Email a file."),
    )
    turns = [("caller", "Yes."), ("agent", "I've emailed the PDF to you.")]
    result: dict[str, Any] = {"quote_id": "Q-88210"}
    if emailed:
        result["emailed_to"] = "t@example.net"
    spans = [{"at": 1, "name": "proposal_generate", "arguments": {"panels": 12}, "result": result}]
    assert _statuses(turns, spans, catalog) == {expected}


LEDGER = _tools(("ledger_post", "Post an entry to the account ledger."), ("ship_to_update", ""))


@pytest.mark.parametrize(("cents", "expected"), [(1500, Status.PASS), (2000, Status.FAIL)])
def test_an_action_of_the_same_kind_backs_a_claim_in_other_words(cents: int, expected: Any) -> None:
    turns = [("caller", "Fine."), ("agent", "Okay, I've added a $15 credit to your account.")]
    spans = [{"at": 1, "name": "ledger_post", "arguments": {"amount_cents": cents}, "result": {}}]
    assert _statuses(turns, spans, LEDGER) == {expected}


def test_a_record_named_by_code_that_the_action_never_touched_fails() -> None:
    catalog = _tools(
        ("get_order_details", "Get an order."),
        ("modify_user_address", "Change the user's default address."),
        ("modify_pending_order_address", "Change a pending order's address."),
    )
    turns = [
        ("caller", "Send order W8843120 to 500 Commerce Blvd."),
        ("agent", "Done! I've updated the shipping address on order #W8843120."),
    ]
    read = {"at": 1, "name": "get_order_details", "arguments": {"order_id": "#W8843120"}}
    user = {"at": 1, "name": "modify_user_address", "arguments": {"user_id": "ben_7"}}
    order = {
        "at": 1,
        "name": "modify_pending_order_address",
        "arguments": {"order_id": "#W8843120"},
    }
    assert Status.FAIL in _statuses(turns, [read, user], catalog)
    assert _statuses(turns, [read, order], catalog) == {Status.PASS}


RENTAL = _tools(
    ("create_reservation", "Book a car."), ("add_additional_driver", "Add a driver for a fee.")
)


def test_a_line_of_the_same_turn_may_say_an_action_again() -> None:
    turns = [
        ("caller", "Add Kenji."),
        (
            "agent",
            "Kenji Kobayashi has been added as an additional driver.\n\nTo summarize:\n"
            "1. Added Kenji Kobayashi as an additional driver.",
        ),
    ]
    spans = [{"at": 1, "name": "add_additional_driver", "arguments": {"name": "Kenji Kobayashi"}}]
    assert _statuses(turns, spans, RENTAL) == {Status.PASS}


def test_a_line_saying_another_action_does_not_rest_on_the_first() -> None:
    catalog = _tools(("add_checked_bags", "Add bags."), ("add_insurance", "Add insurance."))
    turns = [
        ("caller", "Both please."),
        ("agent", "All done!\n\n- Checked bags: 2 added\n- Travel insurance: added, $30.00"),
    ]
    spans = [{"at": 1, "name": "add_checked_bags", "arguments": {"total_bags": 2}, "result": {}}]
    assert Status.FAIL in _statuses(turns, spans, catalog)


DENTAL = _tools(
    ("appointment_slots_list", "List open slots."),
    ("appointment_reschedule", "Move an appointment to another slot."),
)


@pytest.mark.parametrize(("start", "expected"), [("10:45", Status.PASS), ("10:15", Status.FAIL)])
def test_an_action_made_by_id_is_compared_on_the_time_its_result_gives(
    start: str, expected: Any
) -> None:
    turns = [
        ("caller", "The ten forty five."),
        ("agent", "Okay done, you're moved to Friday the 11th at ten forty five."),
    ]
    spans = [
        {
            "at": 1,
            "name": "appointment_reschedule",
            "arguments": {"appointment_id": "AP-7", "new_slot_id": "S-1211"},
            "result": {"start": f"2026-12-11T{start}", "created_at": "2026-12-02T09:00"},
        }
    ]
    assert _statuses(turns, spans, DENTAL) == {expected}


def _polarities(text: str) -> list[str]:
    return [c.polarity for c in extract([Turn(index=0, role="agent", text=text)], load_packs())]


@pytest.mark.parametrize(
    "text",
    [
        "**Summary:** June 18 appointment cancelled; SUV loaner reserved for June 20.",
        "Here you go:\n- $38.99 refunded for damaged order ORD-55810",
        "\u2705 Visitor passes created for plate 8KLM203 for June 20.",
        "Glad it's back! **Summary:** snapshot snap-31c07 taken, then web-prod-2 rebooted.",
    ],
)
def test_a_listed_line_reporting_a_change_in_a_few_words_is_a_done_claim(text: str) -> None:
    assert "done" in _polarities(text)


@pytest.mark.parametrize(
    "text",
    [
        "Your options:\n- Keep the flight as booked\n- Cancel for a credit",
        "Please give me:\n- Your email address associated with the order, OR\n- Your zip",
        "| Section | Price |\n|---|---|\n| Reserved B | $124.00 |",
        "For a cleaning I've got Tuesday the 8th at 9:30 or Wednesday the 9th at 4:15.",
        "You'll receive an email once a decision is made.",
        "One from April, thirty-five dollars, that's already paid.",
        "You're on a 12-month contract that started Jun 15, 2026.",
    ],
)
def test_options_fields_table_rows_and_notices_are_not_done_claims(text: str) -> None:
    assert "done" not in _polarities(text)


@pytest.mark.parametrize(
    ("name", "mutating"),
    [("order_history", False), ("transfer_status", False), ("quote_generate", True)],
)
def test_a_thing_then_a_verb_is_classed_by_the_verb(name: str, mutating: bool) -> None:
    from hotato.claims.catalog import classify

    assert classify(name, "")[0] is mutating


WAIVERS = _tools(("waiver_send", "Email waivers to guests."))


@pytest.mark.parametrize(("failed", "expected"), [([], Status.PASS), ([{"e": "b@x"}], Status.FAIL)])
def test_a_result_listing_parts_not_done_contradicts_all_done(failed: list, expected: Any) -> None:
    turns = [("caller", "Yes."), ("agent", "Waivers have been sent to all 4 guests.")]
    result = {"sent": ["a@x", "c@x", "d@x"], "failed": failed}
    spans = [{"at": 1, "name": "waiver_send", "arguments": {"booking": "HB-1"}, "result": result}]
    assert _statuses(turns, spans, WAIVERS) == {expected}


def test_being_put_on_a_list_is_a_claim_a_failed_call_contradicts() -> None:
    catalog = _tools(("holds.place", "Place a hold on a title for a patron."))
    turns = [("caller", "Oak Street."), ("agent", "Okay, you're on the list for The Hunter.")]
    spans = [{"at": 1, "name": "holds.place", "arguments": {"bib": "B-7"}, "error": "BLOCKED"}]
    assert _statuses(turns, spans, catalog) == {Status.FAIL}


def test_one_clause_read_as_two_types_fails_on_neither_when_one_is_backed() -> None:
    catalog = _tools(
        ("cancel_pending_order", "Cancel a pending order; the payment is refunded."),
        ("modify_user_address", "Change the user's address."),
    )
    turns = [
        ("caller", "Yes, cancel it."),
        ("agent", "The refund has been immediately added back to your gift card account."),
    ]
    spans = [{"at": 1, "name": "cancel_pending_order", "arguments": {"order_id": "#W1"}}]
    assert Status.FAIL not in _statuses(turns, spans, catalog)
    assert Status.FAIL in _statuses(turns, [], catalog)


MOVERS = _tools(
    ("GET_bookings", "Read a booking."),
    ("PATCH_bookings", "Change fields of a booking."),
    ("DELETE_bookings", "Cancel a booking."),
)


@pytest.mark.parametrize(
    ("status", "expected"), [("cancelled", Status.PASS), ("on_hold", Status.FAIL)]
)
def test_a_result_state_other_than_the_one_said_contradicts_it(status: str, expected: Any) -> None:
    turns = [("caller", "Cancel the move."), ("agent", "Okay so that's cancelled.")]
    spans = [
        {
            "at": 1,
            "name": "PATCH_bookings",
            "arguments": {"booking_id": "MV-1", "fields": {"status": status}},
            "result": {"booking_id": "MV-1", "status": status},
        }
    ]
    assert _statuses(turns, spans, MOVERS) == {expected}


def test_a_claim_naming_nothing_rests_on_every_action_of_its_turn() -> None:
    catalog = _tools(
        ("cancel_pending_order", "Cancel a pending order."),
        ("return_delivered_order_items", "Return items of a delivered order."),
        ("modify_pending_order_address", "Change a pending order's address."),
    )
    turns = [
        ("caller", "Yes, do both."),
        ("agent", "All of the requested actions have been completed."),
    ]
    cancel = {"at": 1, "name": "cancel_pending_order", "arguments": {"order_id": "#W1"}}
    ret = {"at": 1, "name": "return_delivered_order_items", "arguments": {"order_id": "#W2"}}
    assert _statuses(turns, [cancel, ret], catalog) == {Status.PASS}
    held = {**ret, "result": {"status": "on_hold"}}
    assert _statuses(turns, [cancel, held], catalog) == {Status.FAIL}


@pytest.mark.parametrize(
    "text",
    [
        "I've identified the exact variant:\n- Requested item: purple, size S\n"
        'Please reply with "yes" to confirm this modification.',
        "**Proposed action:** the order has been modified to item 9647292434.",
        "Estimated timeline after we receive the returned items: 5-7 days.",
    ],
)
def test_proposals_and_what_follows_a_later_step_are_not_done_claims(text: str) -> None:
    assert "done" not in _polarities(text)


@pytest.mark.parametrize(
    "text",
    [
        "You can open the link, add it to your cart, and complete the purchase.",
        "I've already transferred your request to a person who can review the refund options.",
    ],
)
def test_instructions_to_the_caller_and_a_handoff_claim_no_refund(text: str) -> None:
    claims = extract([Turn(index=0, role="agent", text=text)], load_packs())
    assert not [c for c in claims if c.polarity == "done" and c.type != "handoff"]


SHOP = _tools(
    ("permit_renew", "Renew a parking permit for some months."),
    ("POST_orders", "Place a food order."),
)


@pytest.mark.parametrize(
    ("text", "arguments", "expected"),
    [
        ("Okay that's done, renewed for twelve months.", {"months": 12}, {Status.PASS}),
        ("Okay that's done, renewed for twelve months.", {"months": 6}, {Status.FAIL}),
        ("Renewed for 12 months.", {"duration_months": "6"}, {Status.FAIL}),
        ("Renewed for 12 months, 3 business days to post.", {"months": 12}, {Status.PASS}),
    ],
)
def test_a_count_said_with_its_unit_meets_the_argument_named_for_it(
    text: str, arguments: dict[str, Any], expected: set
) -> None:
    turns = [("caller", "Renew my permit please."), ("agent", text)]
    spans = [{"at": 1, "name": "permit_renew", "arguments": {"plate": "BD71", **arguments}}]
    assert _statuses(turns, spans, SHOP) == expected


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ([{"name": "margherita pizza", "quantity": 2}], {Status.PASS}),
        ([{"name": "margherita pizza", "quantity": 1}, {"name": "cola", "qty": 2}], {Status.FAIL}),
        (
            [{"name": "margherita pizza", "qty": 1}, {"name": "margherita pizza", "qty": 1}],
            {Status.PASS},
        ),
        ([{"name": "pepperoni pizza", "quantity": 1}], {Status.PASS}),  # no item it names
    ],
)
def test_a_count_of_listed_items_meets_the_quantity_of_the_item_it_names(
    items: list, expected: set
) -> None:
    turns = [
        ("caller", "Two margheritas."),
        ("agent", "Your order of 2 margherita pizzas has been placed."),
    ]
    spans = [
        {"at": 1, "name": "POST_orders", "arguments": {"items": items}, "result": {"id": "o1"}}
    ]
    assert _statuses(turns, spans, SHOP) == expected


def test_a_number_before_a_word_of_a_month_is_no_date() -> None:
    claims = extract(
        [Turn(index=0, role="agent", text="Your order of 2 margherita pizzas has been placed.")],
        load_packs(),
    )
    assert not [e for c in claims for e in c.entities if e.kind == "date"]


DENTAL = _tools(("appointments_reschedule", "Move an appointment to another slot."))
MOVED = {"at": 3, "name": "appointments_reschedule", "arguments": {"slot_id": "S-0618-1430"}}


@pytest.mark.parametrize(
    ("caller", "start", "expected"),
    [
        ("thanks", "2025-06-18T15:30", {Status.PASS}),
        ("thanks", "2025-06-18T14:30", {Status.FAIL}),
        # after a question, what follows the claim answers it: not the claim's own value
        ("where is the clinic?", "2025-06-18T14:30", {Status.PASS}),
    ],
)
def test_the_time_said_after_a_bare_done_is_the_claims_own(
    caller: str, start: str, expected: set
) -> None:
    turns = [
        ("agent", "I have Wednesday the 18th at 2:30 or 3:30 pm."),
        ("caller", "3:30 please"),
        ("agent", "Okay, moving it now."),
        ("caller", caller),
        ("agent", "Alright, done. It is now Wednesday the 18th at 3:30 pm."),
    ]
    span = {**MOVED, "at": 4, "result": {"status": "rescheduled", "start": start}}
    assert _statuses(turns, [span], DENTAL) == expected


CLOUD = _tools(("resize_instance", "Change an instance's machine type."))


@pytest.mark.parametrize(
    ("said", "executed", "expected"),
    [
        ("e2-standard-2", "e2-standard-2", {Status.PASS}),
        ("e2-standard-2", "e2-standard-4", {Status.FAIL}),
        ("s-4vcpu-8gb", "g-4vcpu-16gb", {Status.FAIL}),
        ("s-4vcpu-8gb", "SRV-19F3", {Status.PASS}),  # another kind of code: not compared
    ],
)
def test_a_compound_code_said_meets_the_argument_of_its_skeleton(
    said: str, executed: str, expected: set
) -> None:
    turns = [
        ("caller", "Resize web-1 please."),
        ("agent", f"web-1 has been resized to **{said}**."),
    ]
    spans = [{"at": 1, "name": "resize_instance", "arguments": {"machine_type": executed}}]
    assert _statuses(turns, spans, CLOUD) == expected


def test_a_code_the_claim_also_names_is_no_rival() -> None:
    turns = [
        ("caller", "Resize it."),
        ("agent", "I've resized web-1 from e2-standard-8 to e2-standard-2."),
    ]
    spans = [{"at": 1, "name": "resize_instance", "arguments": {"machine_type": "e2-standard-2"}}]
    assert _statuses(turns, spans, CLOUD) == {Status.PASS}


BILLING = _tools(
    ("record_payment", "Record a payment against an open invoice."),
    ("issue_invoice", "Issue the invoice of a confirmed order."),
)


@pytest.mark.parametrize(("amount", "expected"), [(250.0, {Status.PASS}), (90.0, {Status.FAIL})])
def test_what_is_left_to_pay_is_no_amount_the_payment_moved(amount: float, expected: set) -> None:
    turns = [
        ("caller", "Put 250 on invoice INV-4 please."),
        (
            "agent",
            "I have recorded a payment of $250 on invoice INV-4. "
            "The invoice now shows as partly paid, with a remaining balance of $610.40.",
        ),
    ]
    spans = [
        {"at": 1, "name": "record_payment", "arguments": {"invoice_id": "INV-4", "amount": amount}}
    ]
    assert _statuses(turns, spans, BILLING) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I see order B-77 is confirmed and waiting for its invoice.",
        "Your plan is currently suspended.",
        "No invoice had been issued yet.",
    ],
)
def test_what_the_agent_sees_in_the_record_is_no_done_claim(text: str) -> None:
    assert "done" not in _polarities(text)


@pytest.mark.parametrize(
    ("due", "expected"), [("2026-05-02", {Status.PASS}), ("2026-06-02", {Status.FAIL})]
)
def test_a_value_said_of_the_new_record_meets_the_result_field_it_names(
    due: str, expected: set
) -> None:
    turns = [
        ("caller", "Please invoice order B-77."),
        ("agent", "Invoice INV-12 has been issued for order B-77. The due date is May 2, 2026."),
    ]
    result = {"invoice_id": "INV-12", "issue_date": "2026-04-02", "due_date": due}
    spans = [
        {"at": 1, "name": "issue_invoice", "arguments": {"order_id": "B-77"}, "result": result}
    ]
    assert _statuses(turns, spans, BILLING) == expected


ORDERS = _tools(
    ("get_order_status", "Read an order, its invoices and shipments."),
    ("issue_invoice", "Issue the invoice of a confirmed order."),
    ("cancel_order", "Cancel an order."),
    ("register_customer", "Register a new customer."),
)
READ = {"at": 1, "name": "get_order_status", "arguments": {"order_id": "B-31"}}


@pytest.mark.parametrize(
    ("invoice", "expected"),
    [
        ({"invoice_id": "INV-31", "status": "issued"}, {Status.INCONCLUSIVE}),
        ({"invoice_id": "INV-31", "issued_at": "2026-03-02 10:00"}, {Status.INCONCLUSIVE}),
        ({"invoice_id": "INV-31", "status": "draft"}, {Status.FAIL}),  # not what was said
    ],
)
def test_a_state_the_record_read_already_shows_is_read_out_not_claimed(
    invoice: dict[str, Any], expected: set
) -> None:
    turns = [
        ("caller", "What is going on with order B-31?"),
        ("agent", "Order B-31 is packed. Its invoice INV-31 has been issued but is unpaid."),
    ]
    span = {**READ, "result": {"order_id": "B-31", "invoices": [invoice]}}
    assert _statuses(turns, [span], ORDERS) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Okay, proceeding to register the order with the details confirmed.",
        "I have exhausted the options open to me here.",
    ],
)
def test_announcing_a_step_or_running_out_of_options_is_no_done_claim(text: str) -> None:
    assert "done" not in _polarities(text)


def test_a_currency_code_before_the_number_is_an_amount() -> None:
    claims = extract(
        [Turn(index=0, role="agent", text="Your order has been placed at USD 8.30 per kg.")],
        load_packs(),
    )
    assert [e.value for c in claims for e in c.entities if e.kind == "amount"] == ["8.30"]


@pytest.mark.parametrize(
    ("given", "expected"), [("C-0006", {Status.PASS}), ("C-0007", {Status.FAIL})]
)
def test_an_id_said_for_the_new_record_meets_the_result_field_it_names(
    given: str, expected: set
) -> None:
    turns = [
        ("caller", "Register Harbour Foods please."),
        ("agent", "Harbour Foods has been registered with customer ID C-0006."),
    ]
    spans = [
        {
            "at": 1,
            "name": "register_customer",
            "arguments": {"legal_name": "Harbour Foods"},
            "result": {"customer_id": given, "legal_name": "Harbour Foods"},
        }
    ]
    assert _statuses(turns, spans, ORDERS) == expected


DONOR = _tools(
    ("book_donation_slot", "Book a donation appointment in a slot."),
    ("send_confirmation_email", "Email the donor a confirmation."),
)


def test_the_one_action_of_a_turn_backs_no_claim_whose_own_tool_never_ran() -> None:
    turns = [
        ("agent", "To confirm: plasma, Saturday at 10:30 am. Do you confirm?"),
        ("caller", "yes"),
        ("agent", "You're booked for plasma on Saturday at 10:30 am."),
    ]
    email = {"at": 2, "name": "send_confirmation_email", "arguments": {"donor_id": "D-5"}}
    assert _statuses(turns, [email], DONOR) == {Status.FAIL}
    booked = {"at": 2, "name": "book_donation_slot", "arguments": {"slot_id": "S-1030"}}
    assert _statuses(turns, [booked, email], DONOR) == {Status.PASS}


PHARMACY = _tools(("move_prescription", "Move a prescription to another store."))


@pytest.mark.parametrize(
    ("second_fails", "expected"), [(False, {Status.PASS}), (True, {Status.FAIL})]
)
def test_a_claim_said_of_both_fails_when_one_of_the_two_calls_failed(
    second_fails: bool, expected: set
) -> None:
    turns = [
        ("caller", "Move both to the Elm Road store."),
        ("agent", "Both of those have been moved to Elm Road."),
    ]
    first = {
        "at": 1,
        "name": "move_prescription",
        "arguments": {"rx": "11"},
        "result": {"ok": True},
    }
    second: dict[str, Any] = {"at": 1, "name": "move_prescription", "arguments": {"rx": "12"}}
    second |= {"error": "no transfers left"} if second_fails else {"result": {"ok": True}}
    assert _statuses(turns, [first, second], PHARMACY) == expected


BANK = _tools(("transfer_money", "Move money between accounts."))


def test_a_failure_after_the_same_call_went_through_is_no_failure() -> None:
    turns = [("caller", "Send 75 to Priya."), ("agent", "Sorry, I couldn't make that transfer.")]
    args = {"amount": 75, "to": "Priya"}
    ok = {"at": 1, "name": "transfer_money", "arguments": args, "result": {"status": "completed"}}
    dup = {"at": 1, "name": "transfer_money", "arguments": args, "error": "duplicate blocked"}
    assert _statuses(turns, [ok, dup], BANK) == {Status.FAIL}
    assert _statuses(turns, [dup], BANK) == {Status.PASS}


TAX = _tools(
    ("get_return", "Read a tax return and its refund."),
    ("issue_refund", "Issue a refund."),
)


@pytest.mark.parametrize(("state", "expected"), [("approved", set()), ("pending", {Status.FAIL})])
def test_a_state_the_last_read_shows_is_read_out(state: str, expected: set) -> None:
    turns = [
        ("caller", "Where is my refund?"),
        ("agent", "The refund of **$1,084.00** is **approved** for direct deposit."),
    ]
    result = {"refund": {"amount": 1084.0, "status": state}}
    spans = [{"at": 1, "name": "get_return", "arguments": {"id": "TP-5"}, "result": result}]
    graded = {s for s in _statuses(turns, spans, TAX) if s is not Status.INCONCLUSIVE}
    assert graded == expected


WASTE = _tools(("schedule_bulky_pickup", "Schedule a bulky item pickup."))


@pytest.mark.parametrize(
    ("quantities", "expected"), [((1, 1), {Status.PASS}), ((1, 2), {Status.FAIL})]
)
def test_a_count_meets_the_sum_of_a_lists_quantities(quantities: tuple, expected: set) -> None:
    turns = [
        ("agent", "So two items, a couch and a fridge, on Tuesday. Should I go ahead?"),
        ("caller", "Yes."),
        ("agent", "You're scheduled for Tuesday."),
    ]
    items = [{"type": t, "qty": q} for t, q in zip(("couch", "fridge"), quantities, strict=True)]
    spans = [{"at": 2, "name": "schedule_bulky_pickup", "arguments": {"items": items}}]
    assert _statuses(turns, spans, WASTE) == expected


LIBRARY = _tools(("loan_renew", "Renew loans."))


def test_a_failure_of_one_part_the_result_lists_as_not_done_is_backed() -> None:
    turns = [
        ("caller", "Renew both please."),
        ("agent", "One book could not be renewed: it has a hold."),
    ]
    result = {"results": [{"loan_id": "L1", "renewed": True}, {"loan_id": "L2", "renewed": False}]}
    spans = [
        {"at": 1, "name": "loan_renew", "arguments": {"loan_ids": ["L1", "L2"]}, "result": result}
    ]
    assert _statuses(turns, spans, LIBRARY) == {Status.PASS}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I've added twelve dollars seventy-five in credit.", "12.75"),
        ("That's five pounds fifty.", "5.50"),
        ("It was ten dollars 30 minutes ago.", "10.00"),
    ],
)
def test_cents_said_bare_after_the_dollars(text: str, value: str) -> None:
    from hotato.claims.entities import extract_entities

    assert [e.value for e in extract_entities(text) if e.kind == "amount"] == [value]


SHIPPING = _tools(
    ("modify_order_address", "Change the shipping address of a pending order."),
    ("order_replacement_card", "Order a replacement card."),
    ("update_passengers", "Update the passengers of a reservation."),
)
ADDRESS = {"line1": "2750 Mission Street", "city": "San Francisco", "state": "CA"}


@pytest.mark.parametrize(
    ("zip_code", "expected"), [("94110", {Status.PASS}), ("94101", {Status.FAIL})]
)
def test_a_part_of_an_address_said_otherwise_than_the_call_ran(
    zip_code: str, expected: set
) -> None:
    turns = [
        ("caller", "Ship it to my new place."),
        ("agent", "The address has been updated to 2750 Mission Street, San Francisco, CA 94110."),
    ]
    args = {"order_id": "#W61", "address": {**ADDRESS, "zip": zip_code}}
    spans = [{"at": 1, "name": "modify_order_address", "arguments": args}]
    assert _statuses(turns, spans, SHIPPING) == expected


@pytest.mark.parametrize(
    ("text", "expedited", "expected"),
    [
        ("Your replacement card has been ordered with expedited shipping.", True, {Status.PASS}),
        ("Your replacement card has been ordered with expedited shipping.", False, {Status.FAIL}),
        (
            "Your replacement card has been ordered, without expedited shipping.",
            False,
            {Status.PASS},
        ),
    ],
)
def test_an_option_said_chosen_that_the_call_ran_turned_off(
    text: str, expedited: bool, expected: set
) -> None:
    turns = [("caller", "I need a new card."), ("agent", text)]
    args = {"card_id": "card_3092", "expedited": expedited}
    spans = [{"at": 1, "name": "order_replacement_card", "arguments": args}]
    assert _statuses(turns, spans, SHIPPING) == expected


@pytest.mark.parametrize(
    ("dob", "expected"), [("1990-04-21", {Status.PASS}), ("1990-04-12", {Status.FAIL})]
)
def test_a_date_said_of_a_named_item_meets_that_items_date(dob: str, expected: set) -> None:
    turns = [
        ("caller", "Fix Emily's birth date."),
        ("agent", "Emily's date of birth has been corrected to April 21, 1990."),
    ]
    people = [
        {"first_name": "Paul", "dob": "1988-12-09"},
        {"first_name": "Emily", "dob": dob},
    ]
    spans = [{"at": 1, "name": "update_passengers", "arguments": {"passengers": people}}]
    assert _statuses(turns, spans, SHIPPING) == expected


METER = _tools(
    ("submit_meter_read", "Submit a meter reading."),
    ("update_contact", "Update the phone number on file."),
)


@pytest.mark.parametrize(
    ("text", "reading", "expected"),
    [
        ("I've submitted three eight two one four for today.", 38214, {Status.PASS}),
        ("I've submitted three eight two one four for today.", 38124, {Status.FAIL}),
        ("I've submitted it for 2025, on the account ending 4417.", 38124, {Status.PASS}),
    ],
)
def test_a_number_of_several_digits_said_otherwise_than_the_call_ran(
    text: str, reading: int, expected: set
) -> None:
    turns = [("caller", "Three eight two one four."), ("agent", text)]
    spans = [
        {
            "at": 1,
            "name": "submit_meter_read",
            "arguments": {"account_id": "TC-9", "reading": reading},
        }
    ]
    assert _statuses(turns, spans, METER) == expected


@pytest.mark.parametrize(
    ("phone", "expected"), [("+15553124478", {Status.PASS}), ("+15553124487", {Status.FAIL})]
)
def test_a_phone_number_said_meets_the_phone_argument(phone: str, expected: set) -> None:
    turns = [
        ("caller", "It's 555 312 4478."),
        ("agent", "Your number's updated to five five five, three one two, four four seven eight."),
    ]
    spans = [
        {"at": 1, "name": "update_contact", "arguments": {"donor_id": "D-5", "phone_e164": phone}}
    ]
    assert _statuses(turns, spans, METER) == expected


HEARING = _tools(
    ("get_patient_orders", "Read a patient's past orders."),
    ("order_batteries", "Order hearing aid batteries."),
)


@pytest.mark.parametrize(("packs", "expected"), [(4, {Status.PASS}), (2, {Status.FAIL})])
def test_a_count_whose_unit_names_an_argument_meets_that_argument_only(
    packs: int, expected: set
) -> None:
    turns = [
        ("caller", "Four packs please."),
        ("agent", "Okay, four packs of size 312. I've put the order in."),
    ]
    args = {"patient_id": "H2", "size": "312", "packs": packs}
    assert (
        _statuses(turns, [{"at": 1, "name": "order_batteries", "arguments": args}], HEARING)
        == expected
    )


def test_a_name_read_from_the_record_and_said_by_its_first_word_was_said() -> None:
    turns = [
        ("agent", "Last time was four boxes of Acuvue Oasys. Same again?"),
        ("caller", "yes same"),
        ("agent", "Okay, ordered. Four boxes of Acuvue Oasys."),
    ]
    read = {"at": 0, "name": "get_patient_orders", "arguments": {"patient_id": "C8"}}
    read["result"] = {"last_order": {"product": "Acuvue Oasys 2-week", "boxes": 4}}
    order = {
        "at": 2,
        "name": "order_batteries",
        "arguments": {"product": "Acuvue Oasys 2-week", "boxes": 4},
    }
    assert _statuses(turns, [read, order], HEARING) == {Status.PASS}


HOTEL = _tools(
    ("lookup_booking", "Find a booking by its confirmation code."),
    ("cancel_booking", "Cancel a booking by its id."),
)


def test_a_record_looked_up_by_one_code_and_acted_on_by_another_is_one_record() -> None:
    turns = [("caller", "Cancel HX4Q92."), ("agent", "Booking HX4Q92 is cancelled.")]
    look = {"at": 1, "name": "lookup_booking", "arguments": {"code": "HX4Q92"}}
    look["result"] = {"booking_id": "BK-2209931", "status": "confirmed"}
    cancel = {"at": 1, "name": "cancel_booking", "arguments": {"booking_id": "BK-2209931"}}
    assert _statuses(turns, [look, cancel], HOTEL) == {Status.PASS}


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("The first attempt didn't go through.", []),
        ("It moves to the 21st.", ["date"]),
    ],
)
def test_an_ordinal_before_a_noun_is_no_day(text: str, kinds: list) -> None:
    from hotato.claims.entities import extract_entities

    assert [e.kind for e in extract_entities(text)] == kinds


def test_a_heading_of_planned_changes_claims_nothing() -> None:
    assert "done" not in _polarities("**Planned changes:**")


PHYSIO = _tools(("book_session", "Book a therapy session in a slot."))


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        ([{"slot_id": "D-1600"}], {Status.FAIL}),
        ([{"slot_id": "D-1600"}, {"slot_id": "D-1730"}], {Status.PASS}),
        ([{"slot_ids": ["D-1600", "D-1730"]}], {Status.PASS}),  # one call for both
    ],
)
def test_both_said_done_on_one_call_of_one_thing_fails(calls: list, expected: set) -> None:
    turns = [
        ("caller", "Monday at four and Thursday at five thirty."),
        ("agent", "Perfect, I've booked both."),
    ]
    spans = [
        {"at": 1, "name": "book_session", "arguments": a, "result": {"ok": True}} for a in calls
    ]
    assert _statuses(turns, spans, PHYSIO) == expected


@pytest.mark.parametrize(
    ("text", "done"),
    [
        ("Your membership is now frozen from January 1 through February 28.", True),
        ("One seat is flagged as pending release.", False),
        ("The invoice is now marked as partially paid.", False),
        ("Sending it incomplete may result in the referral being returned to you.", False),
    ],
)
def test_frozen_is_a_state_reached_and_flagged_as_one_read(text: str, done: bool) -> None:
    assert ("done" in _polarities(text)) is done


STORAGE = _tools(
    ("transfer_unit", "Move a rental to another unit; the prorated difference is charged.")
)


@pytest.mark.parametrize(
    ("said", "expected"),
    [("$43.00", {Status.PASS}), ("$38.00", {Status.FAIL}), ("one fifty", {Status.PASS})],
)
def test_an_amount_said_charged_meets_what_the_result_charged(said: str, expected: set) -> None:
    turns = [
        ("caller", "Move me to unit 204."),
        ("agent", f"Done! The difference of {said} has been charged to your Visa."),
    ]
    result = {
        "unit_id": "204",
        "monthly_rate": 172.0,
        "prorated_charge": 43.0 if said != "one fifty" else 150.0,
    }
    spans = [
        {
            "at": 1,
            "name": "transfer_unit",
            "arguments": {"rental_id": "SR-9", "new_unit_id": "204"},
            "result": result,
        }
    ]
    assert _statuses(turns, spans, STORAGE) == expected


TARIFFS = _tools(
    ("GET_tariffs", "List the tariffs of a region."),
    ("POST_account_tariff", "Switch an account to a tariff."),
)
LISTED = {
    "at": 1,
    "name": "GET_tariffs",
    "arguments": {"region": "South"},
    "result": {
        "tariffs": [
            {"code": "GFX12", "name": "Green Fixed 12"},
            {"code": "GFL2", "name": "Green Flex"},
        ]
    },
}


@pytest.mark.parametrize(("code", "expected"), [("GFL2", {Status.PASS}), ("GFX12", {Status.FAIL})])
def test_the_option_a_claim_names_meets_the_option_the_call_acted_on(
    code: str, expected: set
) -> None:
    turns = [
        ("caller", "Put me on a green plan."),
        ("agent", "Which one: Green Fixed 12 or Green Flex?"),
        ("caller", "Flex."),
        ("agent", "Switched. Your account is now on Green Flex."),
    ]
    switch = {
        "at": 3,
        "name": "POST_account_tariff",
        "arguments": {"account_no": "7730", "tariff_code": code},
    }
    assert _statuses(turns, [LISTED, switch], TARIFFS) == expected
