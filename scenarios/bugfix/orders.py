"""Order endpoints: create an order and fetch one."""

from decimal import Decimal, InvalidOperation

from flask import Blueprint, jsonify, request

from app.db import session_scope
from app.models import Order, OrderLine

bp = Blueprint("orders", __name__, url_prefix="/orders")

MAX_LINES = 100


def _parse_money(value: object) -> Decimal | None:
    """Parse a non-negative amount with at most two decimals; None if it is not one."""
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    if amount < 0 or amount.as_tuple().exponent < -2:
        return None
    return amount


@bp.post("")
def create_order():
    payload = request.get_json(silent=True) or {}

    customer_id = payload.get("customer_id")
    if not isinstance(customer_id, int):
        return jsonify(error="customer_id must be an integer"), 400

    lines = payload.get("lines") or []
    if not lines or len(lines) > MAX_LINES:
        return jsonify(error=f"an order needs 1 to {MAX_LINES} lines"), 400

    total = _parse_money(payload.get("total", 0))
    if total is None:
        return jsonify(error="total must be a non-negative amount"), 400

    with session_scope() as session:
        order = Order(customer_id=customer_id, total=total, currency=payload.get("currency", "EUR"))
        for line in lines:
            order.lines.append(
                OrderLine(sku=line["sku"], quantity=int(line.get("quantity", 1)))
            )
        session.add(order)
        session.flush()
        return jsonify(order.to_dict()), 201


@bp.get("/<int:order_id>")
def get_order(order_id: int):
    with session_scope() as session:
        order = session.get(Order, order_id)
        if order is None:
            return jsonify(error="order not found"), 404
        return jsonify(order.to_dict())
