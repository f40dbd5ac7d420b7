from decimal import Decimal

import pytest

from marketplace.services import money


@pytest.mark.parametrize(
    ("amount", "rate", "vendor", "fee"),
    [
        (2999, "20", 2399, 600),  # 599.8 -> 600
        (2759, "20", 2207, 552),  # the EUR price of 29.99 at 0.92: 551.8 -> 552
        (1001, "50", 500, 501),  # exactly half a cent rounds up (half-up on the fee)
        (2999, "12.5", 2624, 375),  # 374.875 -> 375
        (1000, "0", 1000, 0),
        (1000, "100", 0, 1000),
        (1, "20", 1, 0),  # 0.2 -> 0
    ],
)
def test_commission_split_to_the_cent(amount, rate, vendor, fee):
    assert money.split(amount, Decimal(rate)) == (vendor, fee)
    assert vendor + fee == amount


@pytest.mark.parametrize(
    ("usd_cents", "rate", "expected"),
    [(2999, "0.9200", 2759), (1000, "0.9250", 925), (2999, "1", 2999), (50, "0.9210", 46), (0, "0.92", 0),
     (1999, "0.9225", 1844)],  # 1844.0775 -> 1844
)
def test_convert_from_usd_rounds_half_up(usd_cents, rate, expected):
    assert money.convert_from_usd(usd_cents, Decimal(rate)) == expected


def test_formatting():
    assert money.format_cents(2999) == "29.99"
    assert money.format_cents(5) == "0.05"
    assert money.format_cents(0) == "0.00"
    assert money.format_cents(-150) == "-1.50"
    assert money.format_rate(Decimal("0.92")) == "0.9200"
    assert money.format_rate(Decimal(1)) == "1.0000"
    assert money.format_percent(Decimal("20")) == "20.00"


@pytest.mark.parametrize(("value", "expected"), [("0.9200", Decimal("0.92")), (" 1.1 ", Decimal("1.1")),
                                                 ("0", None), ("-1", None), ("abc", None), ("0.12345", None),
                                                 ("NaN", None), ("Infinity", None)])
def test_parse_rate(value, expected):
    assert money.parse_rate(value) == expected


@pytest.mark.parametrize(
    ("cents", "currency", "expected"),
    [(2999, "usd", "$29.99"), (2759, "eur", "€27.59"), (0, "usd", "$0.00"), (0, "EUR", "€0.00"),
     (5, "usd", "$0.05"), (-150, "usd", "-$1.50"), (1234, "gbp", "12.34 GBP"), (121583, "usd", "$1,215.83"),
     (100000000, "eur", "€1,000,000.00"), (-121583, "usd", "-$1,215.83"), (123456, "gbp", "1,234.56 GBP")],
)
def test_format_amount_puts_the_symbol_first_and_groups_thousands(cents, currency, expected):
    assert money.format_amount(cents, currency) == expected
    assert money.format_cents(abs(cents)) == f"{abs(cents) // 100}.{abs(cents) % 100:02d}"  # the API's: no commas


@pytest.mark.parametrize(
    ("cents", "options", "expected"),
    [(0, {"pricing_model": "monthly"}, "Free"), (0, {"pricing_model": "one_time"}, "Free"),
     (2999, {"pricing_model": "monthly"}, "$29.99/month"), (4900, {"pricing_model": "one_time"}, "$49.00 one-time"),
     (121583, {"pricing_model": "monthly"}, "$1,215.83/month"),
     (2759, {"currency": "eur", "pricing_model": "one_time"}, "€27.59 one-time"),
     (2200, {"pricing_model": "weekly"}, "$22.00/month")],  # an unknown model reads as the default
)
def test_price_label_says_what_the_pricing_model_buys(cents, options, expected):
    assert money.price_label(cents, **options) == expected
    assert "".join(money.price_parts(cents, **options)) == expected


def test_amount_label_is_free_at_zero_and_names_no_model():
    assert (money.amount_label(0), money.amount_label(2999), money.amount_label(2759, currency="eur")) == (
        "Free", "$29.99", "€27.59")


@pytest.mark.parametrize(("commission", "expected"), [("20%", "80%"), ("15.5%", "84.5%"), ("0%", "100%"),
                                                      ("12.345%", "87.66%"), ("", ""), ("abc", ""), ("NaN%", "")])
def test_vendor_share_of_a_commission_setting(commission, expected):
    assert money.vendor_share(commission) == expected
    assert money.split_label(Decimal("12.5")) == "87.5/12.5"
