import pytest

from app import create_app


@pytest.fixture
def client():
    app = create_app(testing=True)
    with app.test_client() as client:
        yield client


def order(**changes):
    body = {"customer_id": 7, "lines": [{"sku": "MUG-01", "quantity": 2}], "total": "19.80"}
    body.update(changes)
    return {key: value for key, value in body.items() if value is not None}


def test_create_order(client):
    response = client.post("/orders", json=order())
    assert response.status_code == 201
    assert response.get_json()["total"] == "19.80"


def test_create_order_needs_lines(client):
    response = client.post("/orders", json=order(lines=[]))
    assert response.status_code == 400


def test_create_order_rejects_negative_total(client):
    response = client.post("/orders", json=order(total="-1"))
    assert response.status_code == 400


def test_create_order_requires_total(client):
    response = client.post("/orders", json=order(total=None))
    assert response.status_code == 400
    assert response.get_json() == {"error": "total is required"}


def test_get_missing_order(client):
    assert client.get("/orders/999").status_code == 404
