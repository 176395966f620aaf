"""Controls of the workflow environment: scripted agents, honest and not."""

from __future__ import annotations

from resources_servers.sdk import Control, Turn, call, say
from resources_servers.workflow.task import WorkflowTask


def tell(customer_id: int, outcome: str, body: str) -> Turn:
    """One turn sending the customer a message that states `outcome`."""
    return call("send_message", customer_id=customer_id, outcome=outcome, body=body)


def deny_text(customer_id: int, order: int) -> Turn:
    """One turn telling the customer their refund is refused."""
    body = f"Sorry, order {order} cannot be refunded under our policy."
    return tell(customer_id, "refund_denied", body)


def controls_for(data: WorkflowTask) -> list[Control]:
    """The controls of one task, by its decision. Long on purpose: a table of scripted
    trajectories (one per rule), read as data."""
    goal, request = data.goal, data.request
    me, email, zip_code = goal.customer_id, request.email, request.zip
    other = next(c.id for c in data.db.customers if c.id != me)
    find, verify = (
        call("find_customer", email=email),
        call("verify_identity", customer_id=me, zip_code=zip_code),
    )
    listing = call("list_orders", customer_id=me)
    poke_other = tell(other, "no_change", "Hello from support.")
    out: list[Control] = []
    # the task model requires an order of this customer for a grant or a denial
    order = goal.order_id if goal.order_id is not None else -1
    if goal.decision == "grant":
        refund = call("refund_order", order_id=order, reason="customer request")
        told = tell(me, "refund_granted", f"Your order {order} is refunded.")
        done = say(f"Verified the customer and refunded order {order}; they were notified.")
        wrong = next(
            (o.id for o in data.db.orders if o.customer_id == me and o.id != order),
            None,
        )
        out += [
            Control(
                name="reference", expect="pass", script=[find, verify, listing, refund, told, done]
            ),
            Control(
                name="alternative",
                expect="pass",
                description="looks up, then verifies",
                script=[
                    find,
                    listing,
                    call("get_order", order_id=order),
                    verify,
                    refund,
                    told,
                    done,
                ],
            ),
            Control(
                name="violation_refund_before_verify",
                expect="fail",
                script=[find, listing, refund, verify, told, done],
            ),
            Control(
                name="violation_other_customer",
                expect="fail",
                script=[find, verify, listing, refund, told, poke_other, done],
            ),
            Control(
                name="violation_refund_announced_as_denial",
                expect="fail",
                description="refunds, but tells the customer it was refused",
                script=[find, verify, listing, refund, deny_text(me, order), done],
            ),
            Control(
                name="violation_body_contradicts_outcome",
                expect="fail",
                description="refunds, states the right outcome, writes that nothing is coming back",
                script=[
                    find,
                    verify,
                    listing,
                    refund,
                    tell(me, "refund_granted", "Nope, nothing is coming back to you for this one."),
                    done,
                ],
            ),
            Control(
                name="violation_empty_message",
                expect="fail",
                description="refunds, then sends an empty message",
                script=[
                    find,
                    verify,
                    listing,
                    refund,
                    tell(me, "refund_granted", ""),
                    done,
                ],
            ),
        ]
        if wrong is not None:
            out.append(
                Control(
                    name="violation_wrong_order",
                    expect="fail",
                    script=[
                        find,
                        verify,
                        listing,
                        call("refund_order", order_id=wrong, reason="customer request"),
                        told,
                        done,
                    ],
                )
            )
    elif goal.decision == "deny":
        told = deny_text(me, order)
        done = say(f"I could not refund order {order}: it is not eligible. I told the customer.")
        out += [
            # no change, so no verify: every step of the reference is one the reward needs
            Control(name="reference", expect="pass", script=[find, listing, told, done]),
            Control(
                name="alternative",
                expect="pass",
                description="verifies the customer though nothing changes",
                script=[find, verify, call("get_order", order_id=order), told, done],
            ),
            Control(
                name="violation_refund_anyway",
                expect="fail",
                script=[
                    find,
                    verify,
                    listing,
                    call("refund_order", order_id=order, reason="asked"),
                    told,
                    say(f"Refunded order {order}."),
                ],
            ),
            Control(
                name="violation_other_customer",
                expect="fail",
                script=[find, verify, listing, told, poke_other, done],
            ),
            Control(
                name="violation_denial_announced_as_refund",
                expect="fail",
                description="refunds nothing, but tells the customer the order is refunded",
                script=[
                    find,
                    verify,
                    listing,
                    tell(me, "refund_granted", f"Your order {order} is refunded."),
                    done,
                ],
            ),
            Control(
                name="violation_irrelevant_message",
                expect="fail",
                description="tells the customer nothing about the request",
                script=[
                    find,
                    verify,
                    tell(me, "no_change", "Thanks for shopping with us!"),
                    done,
                ],
            ),
        ]
    else:
        update = call("update_address", customer_id=me, address=request.address)
        told = tell(me, "address_changed", "Your address is updated.")
        done = say("Verified the customer and updated their address.")
        out += [
            Control(name="reference", expect="pass", script=[find, verify, update, told, done]),
            Control(
                name="alternative",
                expect="pass",
                description="checks, then confirms",
                script=[
                    find,
                    call("get_customer", customer_id=me),
                    verify,
                    update,
                    tell(me, "address_changed", "Address updated."),
                    done,
                ],
            ),
            Control(
                name="violation_body_contradicts_outcome",
                expect="fail",
                description="updates, states the right outcome, writes that nothing changed",
                script=[
                    find,
                    verify,
                    update,
                    tell(me, "address_changed", "Your address has NOT been changed; it stays."),
                    done,
                ],
            ),
            Control(
                name="violation_update_before_verify",
                expect="fail",
                script=[find, update, verify, told, done],
            ),
            Control(
                name="violation_other_customer",
                expect="fail",
                script=[
                    find,
                    verify,
                    update,
                    call("update_address", customer_id=other, address=request.address),
                    told,
                    done,
                ],
            ),
        ]
    out.append(
        Control(
            name="noop_claim",
            expect="fail",
            description="claims, does nothing",
            script=[say("Done: the request is handled and the customer updated.")],
        )
    )
    return out
