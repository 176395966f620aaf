"""The knowledge base of the support environment: articles, and questions they answer.

Each question names the one article that answers it, a reference answer written from that
article, and nothing the article does not say.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Article:
    """One help-centre article."""

    article_id: str
    title: str
    body: str


@dataclass(frozen=True)
class Question:
    """A customer question, the article that answers it, and the reference answer."""

    question_id: str
    article_id: str
    text: str
    reference: str


ARTICLES = {
    a.article_id: a
    for a in [
        Article(
            "returns",
            "Returns and refunds",
            "Unworn items can be returned within 30 days of delivery. Start a return from the "
            "Orders page; we email a prepaid label. Refunds go back to the original payment "
            "method within 5 business days of the parcel reaching our warehouse. Final-sale "
            "items cannot be returned.",
        ),
        Article(
            "shipping",
            "Shipping times",
            "Standard shipping takes 3 to 6 business days and is free on orders over 50 euros; "
            "below that it costs 4.90 euros. Express shipping takes 1 to 2 business days and "
            "costs 12 euros. We ship to the EU, Switzerland and Norway.",
        ),
        Article(
            "warranty",
            "Warranty",
            "Electronics carry a 2 year warranty from the date of purchase. Send a photo of the "
            "fault and the order number to support; a covered item is repaired or replaced "
            "within 14 days. Damage from drops or water is not covered.",
        ),
        Article(
            "password",
            "Resetting your password",
            "Choose 'Forgot password' on the sign-in page and enter your email address. The "
            "reset link is valid for 2 hours. After 5 failed sign-in attempts the account is "
            "locked for 15 minutes.",
        ),
        Article(
            "giftcards",
            "Gift cards",
            "Gift cards are valid for 3 years and can be used on every product except other "
            "gift cards. Lost gift cards can be blocked and reissued if you have the purchase "
            "receipt. Gift cards cannot be exchanged for cash.",
        ),
    ]
}

QUESTIONS = [
    Question(
        "returns-window",
        "returns",
        "I got a jacket last week and it doesn't fit. Can I still send it back, and how?",
        "Yes: unworn items can be returned within 30 days of delivery. Start the return from the "
        "Orders page and we will email you a prepaid label.",
    ),
    Question(
        "returns-refund-time",
        "returns",
        "I sent my return back. When will I see the money again?",
        "The refund goes to your original payment method within 5 business days after the "
        "parcel reaches our warehouse.",
    ),
    Question(
        "shipping-express",
        "shipping",
        "How fast is express delivery and what does it cost?",
        "Express shipping takes 1 to 2 business days and costs 12 euros.",
    ),
    Question(
        "shipping-free",
        "shipping",
        "Do I pay for standard shipping on a 40 euro order?",
        "Yes: standard shipping is free only on orders over 50 euros, so a 40 euro order pays "
        "4.90 euros; it takes 3 to 6 business days.",
    ),
    Question(
        "warranty-length",
        "warranty",
        "My headphones bought 18 months ago stopped working. Are they still under warranty?",
        "Yes: electronics have a 2 year warranty from the purchase date. Send a photo of the "
        "fault and your order number to support; covered items are repaired or replaced within "
        "14 days.",
    ),
    Question(
        "warranty-water",
        "warranty",
        "I dropped my speaker in the pool. Does the warranty cover it?",
        "No: water damage is not covered by the warranty, and neither is damage from drops.",
    ),
    Question(
        "password-link",
        "password",
        "I requested a password reset yesterday but the link doesn't work. Why?",
        "The reset link is only valid for 2 hours. Request a new one with 'Forgot password' on "
        "the sign-in page.",
    ),
    Question(
        "password-locked",
        "password",
        "It says my account is locked. What happened and what do I do?",
        "After 5 failed sign-in attempts the account is locked for 15 minutes; wait 15 minutes "
        "and try again, or reset the password with 'Forgot password'.",
    ),
    Question(
        "giftcard-lost",
        "giftcards",
        "I lost a gift card I bought for my sister. Is the money gone?",
        "Not if you have the purchase receipt: a lost gift card can be blocked and reissued "
        "with the receipt.",
    ),
    Question(
        "giftcard-cash",
        "giftcards",
        "Can I get cash back for the rest of my gift card?",
        "No: gift cards cannot be exchanged for cash. They stay valid for 3 years for any "
        "product except other gift cards.",
    ),
]
QUESTIONS_BY_ID = {q.question_id: q for q in QUESTIONS}
