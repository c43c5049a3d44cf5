"""Text normalisation, one table per rule family. No model needed."""

from __future__ import annotations

import random

import pytest

from tray_reader.text import normalize as nz
from tray_reader.text import number_reading, numwords

MONTH_FIRST_DATES = number_reading.month_first_dates

ISSUE_EXAMPLE = (
    "Dr. Smith paid $3.50 on 3 May 2024 at 9:30 pm.",
    "Doctor Smith paid three dollars and fifty cents on the third of May, twenty twenty-four, "
    "at nine thirty PM.",
)

NUMBER_WORDS = [
    (numwords.cardinal, 0, "zero"),
    (numwords.cardinal, 13, "thirteen"),
    (numwords.cardinal, 40, "forty"),
    (numwords.cardinal, 99, "ninety-nine"),
    (numwords.cardinal, 105, "one hundred five"),
    (numwords.cardinal, 1_000_001, "one million one"),
    (numwords.cardinal, 2_500_000_000, "two billion five hundred million"),
    (numwords.cardinal, -7, "minus seven"),
    (
        numwords.cardinal,
        10**16,
        "one zero zero zero zero zero zero zero zero zero zero zero zero zero zero zero zero",
    ),
    (numwords.ordinal, 1, "first"),
    (numwords.ordinal, 12, "twelfth"),
    (numwords.ordinal, 20, "twentieth"),
    (numwords.ordinal, 23, "twenty-third"),
    (numwords.ordinal, 100, "one hundredth"),
    (numwords.year, 1984, "nineteen eighty-four"),
    (numwords.year, 1905, "nineteen oh five"),
    (numwords.year, 1900, "nineteen hundred"),
    (numwords.year, 2000, "two thousand"),
    (numwords.year, 2009, "two thousand nine"),
    (numwords.year, 2010, "twenty ten"),
    (numwords.year, 2024, "twenty twenty-four"),
    (numwords.year, 999, "nine hundred ninety-nine"),
    (numwords.name_number, "747", "seven forty-seven"),
    (numwords.name_number, "404", "four oh four"),
    (numwords.name_number, "101", "one oh one"),
    (numwords.name_number, "400", "four hundred"),
    (numwords.name_number, "777", "seven seven seven"),
    (numwords.name_number, "1047", "ten forty-seven"),
    (numwords.name_number, "2500", "twenty-five hundred"),
    (numwords.name_number, "42", "forty-two"),
]


@pytest.fixture(autouse=True)
def month_first(monkeypatch):
    """A date whose numbers may go either way ("3/4/2025") is read in the order of the user's
    locale; the tables here are written for month first, as in en_US."""
    monkeypatch.setattr(number_reading, "month_first_dates", lambda: True)


@pytest.mark.parametrize(("fn", "n", "words"), NUMBER_WORDS)
def test_number_words(fn, n, words):
    assert fn(n) == words


CASES = {
    "issue example": [ISSUE_EXAMPLE],
    "ordinals": [
        ("1st", "first"),
        ("21st", "twenty-first"),
        ("the 2nd and 3rd", "the second and third"),
        ("112th", "one hundred twelfth"),
    ],
    "decimals and plain numbers": [
        ("3.14", "three point one four"),
        ("0.5 and .5", "zero point five and point five"),
        ("1,000,000 people", "one million people"),
        ("agent 007", "agent zero zero seven"),
        ("-4 and 42", "minus four and forty-two"),
        ("v1.2.3", "version one point two point three"),
        ("COVID-19", "COVID nineteen"),
    ],
    "currency": [
        ("$3.50", "three dollars and fifty cents"),
        ("$1", "one dollar"),
        ("$0.01", "one cent"),
        ("£5", "five pounds"),
        ("€1.01", "one euro and one cent"),
        ("$3.5 million", "three point five million dollars"),
        ("$1,200", "one thousand two hundred dollars"),
        ("5 \u20ac or 12.50 EUR", "five euros or twelve euros and fifty cents"),  # symbol or code after
        ("EUR 12 and USD 3 million", "twelve euros and three million dollars"),
        ("$5 USD or US$5", "five dollars or five dollars"),
        ("AU$5, CA$20 and S$2", "five Australian dollars, twenty Canadian dollars and two Singapore dollars"),
        ("NZ$3.50 or HK$100", "three New Zealand dollars and fifty cents or one hundred Hong Kong dollars"),
        ("$5 AUD or CAD 12", "five Australian dollars or twelve Canadian dollars"),  # the code says whose
        (
            "3,50 \u20ac, \u20ac3,50",
            "three euros and fifty cents, three euros and fifty cents",
        ),  # decimal comma
        (
            "12,99 EUR or \u20ac1.234,56",
            "twelve euros and ninety-nine cents or "
            "one thousand two hundred thirty-four euros and fifty-six cents",
        ),
        (
            "3,500 \u20ac, $1,250, 1,000",
            "three thousand five hundred euros, one thousand two hundred fifty dollars, one thousand",
        ),  # three digits after the comma are thousands
        # A range whose second number has no symbol: the currency is said once, after it.
        (
            "$5-10 per person, \u00a310\u201315 each",
            "five to ten dollars per person, ten to fifteen pounds each",
        ),
        ("$1-2 billion, \u20ac1.5-2bn", "one to two billion dollars, one point five to two billion euros"),
        ("$200-300 a month", "two hundred to three hundred dollars a month"),
        ("$5.50-7.50.", "five dollars and fifty cents to seven dollars and fifty cents."),
        ("US$10-15k", "ten to fifteen thousand dollars"),
        # A whole amount between "a" and a noun describes it: one word, in the singular (it was
        # "a twenty dollars bill").
        (
            "a \u00a350 note, a $20 bill, an \u20ac80 fine, a 20 \u20ac note",
            "a fifty-pound note, a twenty-dollar bill, an eighty-euro fine, a twenty-euro note",
        ),
        ("a $1 million prize, a \u00a35m deal", "a one million-dollar prize, a five million-pound deal"),
        # A rate, cents, a quantity and an amount paid stay as they were.
        (
            "a $5 a month plan, a $3.50 coffee, a $5 or so, It cost a $20. He paid $20 for it",
            "a five dollars a month plan, a three dollars and fifty cents coffee, a five dollars or so, "
            "It cost a twenty dollars. He paid twenty dollars for it",
        ),
    ],
    "rates": [
        ("$0.99/month", "ninety-nine cents per month"),
        ("3 \u20ac/kg", "three euros per kilogram"),
        ("100 requests/s", "one hundred requests per second"),
        ("a 5 m/s wind", "a five meters per second wind"),
        ("support 24/7", "support twenty-four seven"),
        ("yes/no", "yes or no"),
    ],
    "percentages": [
        ("50%", "fifty percent"),
        ("3.5 %", "three point five percent"),
        # Percentage points with a sign, a decimal or after a word of change (it was "pp").
        (
            "+3.5% and -0.2 pp, up 2.5pp, down 1 pp, rose 3 pp. Then",
            "plus three point five percent and minus zero point two percentage points, "
            "up two point five percentage points, down one percentage point, rose three percentage points. Then",
        ),
        ("a 1.5 pp. drop", "a one point five percentage points drop"),
        # A book's pages and a bare "pp" stay; "pp." before pages is still "pages".
        (
            "Oxford, 2019. 320 pp. The 2 pp gap, pp. 12-15",
            "Oxford, twenty nineteen. three hundred twenty pp. The two pp gap, pages twelve to fifteen",
        ),
    ],
    "temperatures": [
        ("-5 °C", "minus five degrees Celsius"),
        ("20°F", "twenty degrees Fahrenheit"),
        ("1°", "one degree"),
        # An angle that describes one thing after "a" is one word (it was "a ninety degrees turn").
        (
            "a 90° turn, a 45° angle, an 80° slope",
            "a ninety-degree turn, a forty-five-degree angle, an eighty-degree slope",
        ),
        (
            "rotate it 90° clockwise, 25°C, 25 °F, a 25°C day",
            "rotate it ninety degrees clockwise, twenty-five degrees Celsius, twenty-five degrees Fahrenheit, "
            "a twenty-five degrees Celsius day",
        ),
        # Without the sign, where the words around make it a temperature (it was "forty C").
        (
            "highs of 40C, it fell to -5C, between 18C and 22C",
            "highs of forty degrees Celsius, it fell to minus five degrees Celsius, "
            "between eighteen degrees Celsius and twenty-two degrees Celsius",
        ),
        (
            "Heat the oven to 200C/180C fan/gas 6. Bake 180C/350F.",
            "Heat the oven to two hundred degrees Celsius, one hundred eighty degrees Celsius fan or gas six. "
            "Bake one hundred eighty degrees Celsius, three hundred fifty degrees Fahrenheit.",
        ),
        # Elsewhere a number and a letter: a room, a seat, a flat, vitamins, hair types.
        (
            "Room 12C, seat 23F, Flat 3C/4C, Apartment 4C and 5F",
            "Room twelve C, seat twenty-three F, Flat three C or four C, Apartment four C and five F",
        ),
        ("Her hair went from 3C to 4C.", "Her hair went from three C to four C."),
        # A latitude and a longitude (it was "degreesN", "thirty'N"); a word glued to the sign.
        (
            "40.7128\u00b0 N, 74.0060\u00b0 W; 51\u00b030\u203226\u2033N; 1\u00b0S",
            "forty point seven one two eight degrees north, seventy-four point zero zero six zero degrees west; "
            "fifty-one degrees thirty minutes twenty-six seconds north; one degree south",
        ),
        ("90\u00b0East, 5\u00b0 E of here", "ninety degrees East, five degrees east of here"),
    ],
    "units": [
        ("10 km", "ten kilometers"),
        ("1 km", "one kilometer"),
        ("5kg", "five kilograms"),
        ("60 km/h", "sixty kilometers per hour"),
        ("2.5 GB", "two point five gigabytes"),
        # Sizes: "x" between lengths or pixels is "by"; before a weight or a count it stays.
        ("4m x 5m, a 9 x 13 inch pan", "four meters by five meters, a nine by thirteen inch pan"),
        ("10 x 10 cm, the 4x100m relay", "ten by ten centimeters, the four by one hundred meters relay"),
        ("1920x1080, 2560 \u00d7 1440", "nineteen twenty by ten eighty, twenty-five sixty by fourteen forty"),
        ("in 1080p or 720p", "in ten eighty p or seven twenty p"),
        ("take 2 x 500mg, 2x faster", "take two times five hundred milligrams, two times faster"),
        # "x" between plain numbers before a noun is a size too; a sum and a variable stay.
        (
            "a 2 x 2 matrix, a 3x3 grid, a 4x4 truck",
            "a two by two matrix, a three by three grid, a four by four truck",
        ),
        (
            "16x16 and 32x32 icons, at 0x01",
            "sixteen by sixteen and thirty-two by thirty-two icons, at zero x zero one",
        ),
        # Before "=" the "x" is a sum's: times.
        (
            "3 x 4 = 12, 2 x 3 is 6, 2 x 4 packs",
            "three times four equals twelve, two x three is six, two x four packs",
        ),
        (
            "3x4=12, 2 x 3 x 4 = 24",
            "three times four equals twelve, two times three times four equals twenty-four",
        ),
        ("a 2x4 board, 2 x 3 m room", "a two by four board, two by three meters room"),
        (
            "take 2 x 500mg, 6 x 330ml cans",
            "take two times five hundred milligrams, six times three hundred thirty-milliliter cans",
        ),
        (
            "solve 2x + 3 = 7, y = 2x, 2x - 1 = 5",
            "solve two x plus three equals seven, y equals two x, two x minus one equals five",
        ),
        # A hyphen before the second length's unit: still a size (it was "nine x thirteen-inch").
        ("a 9x13-inch pan, an 8 x 10-foot rug", "a nine by thirteen-inch pan, an eight by ten-foot rug"),
        # A unit per another, as doses and concentrations are written (it was "ten mg per kilogram").
        (
            "10 mg/kg, 95 mg/dL, 2 g/L, 1 mg/kg/day, 500 mg/day",
            "ten milligrams per kilogram, ninety-five milligrams per deciliter, two grams per liter, "
            "one milligram per kilogram per day, five hundred milligrams per day",
        ),
        (
            "60 km/h, 12 MB/s, 5 m/s",
            "sixty kilometers per hour, twelve megabytes per second, five meters per second",
        ),
        (
            "532 nm, 20 mA, 5000 mAh, 0.5 mM, 140 mmol, 250 kcal, 1 qt. stock, 8 fl oz",
            "five hundred thirty-two nanometers, twenty milliamps, five thousand milliamp hours, "
            "zero point five millimolar, one hundred forty millimoles, two hundred fifty kilocalories, "
            "one quart stock, eight fluid ounces",
        ),
    ],
    "heights": [
        ("He is 5'11\", she is 6' 2\"", "He is five feet eleven inches, she is six feet two inches"),
        ("5 ft 11 in, 6ft, 1 ft 1 in.", "five feet eleven inches, six feet, one foot one inch."),
        ("jumped 5 ft 11 in the air", "jumped five feet eleven in the air"),  # "in" the word
        # With the abbreviations' dots (it was "two inches. tall").
        (
            "He is 5 ft. 2 in. tall, weighs 7 lb. 3 oz. at birth",
            "He is five feet two inches tall, weighs seven pounds three ounces at birth",
        ),
        ("rock 'n' roll in the '90s, \"quoted\" words", "rock 'n' roll in the nineties, \"quoted\" words"),
    ],
    "durations and numbers joined by words": [
        ("1h30 or 1h 30min", "one hour thirty or one hour thirty minutes"),
        ("a 9-to-5 job, 3-in-1, 24/7", "a nine to five job, three in one, twenty-four seven"),
        ("Turn on 2FA, drink 7UP", "Turn on two F A, drink seven UP"),  # "FA" was the note "fa"
    ],
    "years and decades": [
        ("in 1984", "in nineteen eighty-four"),
        ("the 1990s", "the nineteen nineties"),
        ("the '80s", "the eighties"),
        ("in 2005", "in two thousand five"),
        (
            "in 1066, since 1066, the year 1066",
            "in ten sixty-six, since ten sixty-six, the year ten sixty-six",
        ),
        ("1066 people, in 1024 bytes", "one thousand sixty-six people, in one thousand twenty-four bytes"),
        # A season across two years, as "2024-25" is (it was "twenty twenty slash twenty-one").
        (
            "the 2020/21 season, 1999/2000 and 1999/00",
            "the twenty twenty to twenty-one season, nineteen ninety-nine to two thousand and "
            "nineteen ninety-nine to two thousand",
        ),
        ("2020/22, case 17/2023", "twenty twenty slash twenty-two, case seventeen slash twenty twenty-three"),
        # Seconds glued: a decimal, or a whole number after a word of waiting (it was "thirties").
        (
            "the 100m in 9.58s; the timeout is 30s; wait 45s",
            "the one hundred meters in nine point five eight seconds; the timeout is thirty seconds; "
            "wait forty-five seconds",
        ),
        ("in 2s and 3s, her 30s, MP3s", "in two s and three s, her thirties, MP threes"),
    ],
    "dates": [
        ("3 May 2024", "the third of May, twenty twenty-four"),
        ("May 3, 2024", "May third, twenty twenty-four"),
        ("on 1st January", "on the first of January"),
        ("on the 3rd of March", "on the third of March"),  # "the" said once
        ("The 2024-05-03 release", "The third of May, twenty twenty-four, release"),
        ("Sept. 11", "September eleventh"),
        ("2024-05-03", "the third of May, twenty twenty-four"),
        ("3/5/2024", "March fifth, twenty twenty-four"),  # month first: `month_first`
        ("May I go", "May I go"),
        # Days from one to another, before or after their month.
        ("Jan 3-7", "January third to seventh"),
        ("on June 10\u201312, 2025 in Rome", "on June tenth to twelfth, twenty twenty-five, in Rome"),
        ("runs 3-5 March.", "runs the third to the fifth of March."),
        ("24th-26th December 2026", "the twenty-fourth to the twenty-sixth of December, twenty twenty-six"),
        ("won 3-2 in May, on May 3-2", "won three to two in May, on May third two"),  # scores stay
        # Months from one to another, and a weekday's short name before a day and its month.
        ("open Apr-Oct. Closed", "open April to October. Closed"),
        ("Jan\u2013Mar 2025, May - June", "January to March twenty twenty-five, May to June"),
        ("Open Mon-Fri. Closed weekends.", "Open Monday to Friday. Closed weekends."),
        # The days' whole names too (it was "Monday, Friday"); their plurals are left as they are.
        (
            "Open Monday\u2013Friday, Saturday - Sunday closed, Monday-Fri.",
            "Open Monday to Friday, Saturday to Sunday closed, Monday to Friday.",
        ),
        ("Mondays-Fridays, Sunday\u2014a day off", "Mondays-Fridays, Sunday, a day off"),
        ("Wed 5 Jun, Thu 12th Dec.", "Wednesday the fifth of June, Thursday the twelfth of December."),
        # A month's short name before a year alone: the whole name, and the year as a year.
        (
            "released in Dec 2024, Sept 2023 and Jan. 2020.",
            "released in December twenty twenty-four, September twenty twenty-three and January twenty twenty.",
        ),
        (
            "Dec 2024 was cold; Mar 2024 sales",
            "December twenty twenty-four was cold; March twenty twenty-four sales",
        ),
        ("the Mar-a-Lago club", "the Mar-a-Lago club"),
    ],
    "times": [
        ("9:30 pm", "nine thirty PM"),
        ("9:05", "nine oh five"),
        ("10:00", "ten o'clock"),
        ("14:00", "fourteen hundred"),
        ("at 9 a.m. today", "at nine AM today"),
        ("It ends at 5pm. Then", "It ends at five PM. Then"),
        ("at 9.30 pm", "at nine thirty PM"),
        ("open 9:00-17:00", "open nine o'clock to seventeen hundred"),
        ("9am-5pm", "nine AM to five PM"),
        ("10:30, 16:45 and at 10:30 screens", "ten thirty, sixteen forty-five and at ten thirty screens"),
        # With seconds (they were dropped: "It took two forty-five."): a duration, each part said
        # but those that are zero, or a time of day where a word, am/pm, a zone or the hour says so.
        ("It took 2:45:30.", "It took two hours, forty-five minutes and thirty seconds."),
        (
            "a 1:05:09 race, 1:00:05, 00:05:09, 0:00:00",
            "a one hour, five minutes and nine seconds race, one hour and five seconds, "
            "five minutes and nine seconds, zero seconds",
        ),
        (
            "finished in 100:05:09, took 14:45:30, a 2:03:45.6 marathon",
            "finished in one hundred hours, five minutes and nine seconds, took fourteen hours, forty-five minutes "
            "and thirty seconds, a two hours, three minutes and forty-five point six seconds marathon",
        ),
        (
            "At 14:45:30 it began; at 2:45:30 pm, @ 9:05:01",
            "At fourteen forty-five and thirty seconds it began; at two forty-five and thirty seconds PM, "
            "at nine oh five and one second",
        ),
        (
            "14:45:30, [10:15:30] started, 10:00:01 UTC, 5 Jan 2025 10:00:30",
            "fourteen forty-five and thirty seconds, ten fifteen and thirty seconds started, "
            "ten o'clock and one second UTC, the fifth of January, twenty twenty-five, ten o'clock and thirty seconds",
        ),
        ("10:00:00Z, the cue 00:00:01,500", "ten o'clock UTC, the cue one point five seconds"),
    ],
    "numbers that name something": [
        ("California's SB 1047 passed.", "California's SB ten forty-seven passed."),
        ("HR 3684 and AB 5", "HR thirty-six eighty-four and AB five"),
        (
            "HTTP 404 or HTTP 503, two HTTP 404s",
            "HTTP four oh four or HTTP five oh three, two HTTP four oh fours",
        ),
        ("Boeing 747-400, Boeing 777", "Boeing seven forty-seven four hundred, Boeing seven seven seven"),
        ("Airbus A380, an A320-200", "Airbus A-three eighty, an A-three twenty two hundred"),  # the letter A
        ("F-150, RTX 4090, GTX1080", "F one fifty, RTX forty ninety, GTX ten eighty"),
        ("Flight 370, Room 101, Route 66", "Flight three seventy, Room one oh one, Route sixty-six"),
        (
            "ISO 8859-1, RFC 2616, Error 404",
            "ISO eighty-eight fifty-nine one, RFC twenty-six sixteen, Error four oh four",
        ),
        ("MP3s and MP4 files, B-52s", "MP threes and MP four files, B fifty-twos"),
        (
            "h264, h265, x264 and x265",
            "H two sixty-four, H two sixty-five, X two sixty-four and X two sixty-five",
        ),
        (
            "on i386, the y2038 bug, v238",
            "on I three eighty-six, the Y twenty thirty-eight bug, v two hundred thirty-eight",
        ),
        ("x2 and m3s, m100-200", "x two and m three s, m one hundred to two hundred"),
        # Quantities stay quantities.
        (
            "page 404, $404, 404 people",
            "page four hundred four, four hundred four dollars, four hundred four people",
        ),
        (
            "in 1047, Windows 10, iOS 17, COVID-19",
            "in ten forty-seven, Windows ten, iOS seventeen, COVID nineteen",
        ),
        (
            "HTTP 400-499, Room 101-105",  # ranges
            "HTTP four hundred to four hundred ninety-nine, Room one hundred one to one hundred five",
        ),
        (
            "peak RSS 372 \u2192 354 MB, CPU 2400 MHz",
            "peak RSS three hundred seventy-two to three hundred fifty-four megabytes, "
            "CPU two thousand four hundred megahertz",
        ),
        ("ONLY 199 LEFT, USD 404", "ONLY one hundred ninety-nine LEFT, four hundred four dollars"),
        ("the UK 650 seats, the US 435", "the UK six hundred fifty seats, the US four hundred thirty-five"),
        # A standard's letters and number joined by a dot: no decimal, no sentence's end.
        ("(ASN.1), X.509, H.264, G.711", "(ASN one), X five oh nine, H two sixty-four, G seven eleven"),
        ("It is in H.264. Not POSIX.2.", "It is in H two sixty-four. Not POSIX two."),  # at a sentence's end
        ("a POSIX.1-compliant shell", "a POSIX one-compliant shell"),
        (
            "H.R. 3684 passed; in the U.S. 435 people",
            "H.R. thirty-six eighty-four passed; in the U.S. four hundred thirty-five people",
        ),
    ],
    "fractions of a unit": [
        # The number after the slash was read with the unit: "one/two teaspoons".
        ("Mix 2 cups flour, \u00bd tsp salt", "Mix two cups flour, half a teaspoon salt"),
        (
            "1/2 h, 3/4 lb, 1/3 oz, 2 1/2 tbsp",
            "half an hour, three quarters of a pound, one third of an ounce, two and a half tablespoons",
        ),
    ],
    "references": [
        (
            "J. 145(3), 1234-1245. doi:10.1121/1.5091234",
            "J. one hundred forty-five (three), twelve thirty-four "
            "to twelve forty-five. D O I one zero dot one one two one slash one dot five zero nine one two three four",
        ),
        (
            "DOI: 10.1038/s41586-020-2.",
            "D O I one zero dot one zero three eight slash s four one five eight six "
            "dash zero two zero dash two.",
        ),
    ],
    "comparisons": [
        # Without spaces they were dropped as markup: "numpy one point two six".
        (
            "numpy >=1.26, requests<=2.31, foo==1.2, x!=3, a -> b",
            "numpy greater than or equal to one point two six, requests less than or equal to two point three one, "
            "foo equals one point two, x not equal to three, a to b",
        ),
        ("<b>bold</b> and a < b", "bold and a less than b"),
    ],
    "years and counts": [
        # A year-shaped number before a plural counts, unless a word brings in a year.
        (
            "we had 1250 people, sold 1999 cars; It was 1999 plus tax",
            "we had one thousand two hundred fifty people, "
            "sold one thousand nine hundred ninety-nine cars; It was nineteen ninety-nine plus tax",
        ),
        (
            "In 1999 prices rose, the 1999 models. 1999 marks it",
            "In nineteen ninety-nine prices rose, "
            "the nineteen ninety-nine models. nineteen ninety-nine marks it",
        ),
    ],
    "street addresses": [
        # Streets and flats written without dots were spelled ("Baker S T", "Oak ah-vay").
        ("Apt 4B, 221B Baker St, London", "Apartment four B, two hundred twenty-one B Baker Street, London"),
        (
            "12 Oak Ave, Springfield, IL 62704-1234",
            "twelve Oak Avenue, Springfield, IL six two seven zero four, one two three four",
        ),
        (
            "Sunset Blvd, Ste 200. Ft. Worth; Oak Ln.",
            "Sunset Boulevard, Suite two hundred. Fort Worth; Oak Lane.",
        ),
        ("Ave Maria, 1200 sq ft", "Ave Maria, one thousand two hundred square feet"),
        (
            "1600 Pennsylvania Ave NW, 1 Main St SE",
            "sixteen hundred Pennsylvania Avenue NW, one Main Street SE",
        ),
    ],
    "perfect scores": [
        ("10/10 would recommend; 5/5", "ten out of ten would recommend; five out of five"),
        # Days, not scores: the same in either order of day and month.
        ("We met on 10/10, until 5/5", "We met on October tenth, until May fifth"),
    ],
    "greek letters and micro": [
        # Dropped as an unreadable script: "A = \u03c0r\u00b2" was "A equals r squared", "5 \u03bcs" five s.
        (
            "A = \u03c0r\u00b2, \u0394T, the \u03b1 and \u03b2 particles",
            "A equals pi r squared, delta T, the alpha and beta particles",
        ),
        (
            "5 \u00b5m, 10 \u03bcs, 1 \u00b5g, in \u00b5m",
            "five micrometers, ten microseconds, one microgram, in micrometers",
        ),
        ("\u039a\u03b1\u03bb\u03b7\u03bc\u03ad\u03c1\u03b1 ok", "ok"),  # a Greek word is not spelled
    ],
    "pages, zones and periods": [
        (
            "Results 1 - 10 of 200; 5 - 3 = 2",
            "Results one to ten of two hundred; five minus three equals two",
        ),
        (
            "at 14.32 GMT, 09.15 BST; costs 3.50 EUR",
            "at fourteen thirty-two GMT, nine fifteen BST; costs three euros and fifty cents",
        ),
        ("24 mo. warranty, 3 wks, 2 yrs", "twenty-four months warranty, three weeks, two years"),
    ],
    "versions by their v": [
        (
            "v3 is next; the v2 API; a V8 engine",
            "version three is next; the version two API; a V eight engine",
        ),
        # After the word itself the "v" is not said again (it was "Version version three point two").
        ("Version v3.2 is out; version v2", "Version three point two is out; version two"),
    ],
    "keys and platforms": [
        (
            "Use Ctrl+C or Cmd+Shift+P, then press Esc.",
            "Use Control plus C or Command plus Shift plus P, then press Escape.",
        ),
        ("C++, C# and .NET", "C plus plus, C sharp and dot net"),
        # Short names that are words or syllables, joined to another key by "+" (it was "del").
        (
            "Ctrl+Alt+Del, Win+R, Shift + Ins, Alt+PrtSc, Win+Tab",
            "Control plus Alt plus Delete, Windows plus R, Shift plus Insert, Alt plus Print Screen, "
            "Windows plus Tab",
        ),
        ("Del Boca Vista, Win a prize, a Win + a loss", "Del Boca Vista, Win a prize, a Win plus a loss"),
        # A Mac's signs for its keys (they were dropped: "\u2318+C" was "plus C").
        (
            "\u2318+C, press \u21e7\u2318N, \u2303\u2325\u2318 Space, hit \u232b or \u238b",
            "Command plus C, press Shift Command N, Control Option Command Space, hit Delete or Escape",
        ),
        ("the \u2318 key, \u21e7 Shift, \u2325 Option", "the Command key, Shift, Option"),
    ],
    "mail headers": [
        (
            "On Mon, Jan 5, 2024 at 10:00 AM John wrote:",
            "On Monday, January fifth, twenty twenty-four, at ten AM John wrote:",
        ),
        (
            "Sun, 5 Jan 2025 10:00:00 +0000; at 09:30 -05:00",
            "Sunday, the fifth of January, twenty twenty-five, ten o'clock "
            "UTC; at nine thirty UTC minus five",
        ),
        ("Sun May be out. The Sun, 5 stars", "Sun May be out. The Sun, five stars"),
        (
            "Fwd: Invoice\nRE: FW: notes\nSubject: Fwd: hi",
            "Forward: Invoice RE: Forward: notes Subject: Forward: hi",
        ),
        ("The FW: 1.2 update", "The FW: one point two update"),  # firmware
        # A zone after "a.m.": no sentence ends there (it was "ten thirty AM. ET.").
        (
            "at 10:30 a.m. ET. Then 9 p.m. PT, at 9 a.m. Then",
            "at ten thirty AM ET. Then nine PM PT, at nine AM. Then",
        ),
    ],
    "numbers said twice": [
        # Contracts write a number in words and in brackets: it is said once.
        (
            "within thirty (30) days, Ten Thousand (10,000) shares, twenty-one (21) years",
            "within thirty days, Ten Thousand shares, twenty-one years",
        ),
        ("thirty (31) days, dirty (30) tricks", "thirty (thirty-one) days, dirty (thirty) tricks"),
        (
            "fifty percent (50%) or more, more than Fifty Percent (50 %), fifty (50%)",
            "fifty percent or more, more than Fifty Percent, fifty (fifty percent)",
        ),
    ],
    "powers": [
        # Superscripts were made digits by NFKC: "2³" was twenty-three, "m²" "m two".
        (
            "x\u00b2 + y\u00b2 = z\u00b2, E = mc\u00b2",
            "x squared plus y squared equals z squared, E equals mc squared",
        ),
        (
            "2\u00b3 is 8; 10\u207b\u00b3; 2^10; (a+b)^2",
            "two cubed is eight; ten to the power of minus three; "
            "two to the power of ten; (a plus b) squared",
        ),
        (
            "10 m\u00b2, 1 ft\u00b2, 3 ft\u00b2, 5 cm\u00b3, 2 km^2, per m\u00b2",
            "ten square meters, one square foot, "
            "three square feet, five cubic centimeters, two square kilometers, per square meter",
        ),
        # A footnote's number after a word or a full stop is not read; ordinals stay.
        ("The results\u00b9 were clear.\u00b2 The 2\u207f\u1d48", "The results were clear. The second"),
        ("sin\u00b2(x) + cos\u00b2(x) = 1", "sin squared (x) plus cos squared (x) equals one"),
        ("x\u00b2, y\u00b2. Then (a+b)^2.", "x squared, y squared. Then (a plus b) squared."),
        ("H\u2082O and CO\u2082", "H two O and CO two"),
        # E notation (it was "one e six", the minus dropped); a model's letter and a colour stay.
        (
            "1e-6 mol, lr=3e-4, 6.02e23, 1E+10",
            "one times ten to the power of minus six mol, lr equals three times ten to the power of minus four, "
            "six point zero two times ten to the power of twenty-three, one times ten to the power of ten",
        ),
        ("the iPhone 16e, hash 4e5f2a", "the iPhone sixteen e, hash four e five f two a"),
        # A number times a power of ten (it was "five x ten to the power of six", "two by ten cubed").
        (
            "5 x 10^6 cells, 3.2\u00d710\u207b\u2074 M, 2x10^3",
            "five times ten to the power of six cells, three point two times ten to the power of minus four M, "
            "two times ten cubed",
        ),
        ("a 2 x 10 board, 2 x 10 = 20", "a two by ten board, two times ten equals twenty"),
    ],
    "versions": [
        (
            "Python 3.11, Python 3.12 and Node 18.17",
            "Python three point eleven, Python three point twelve and Node eighteen point seventeen",
        ),
        ("Ubuntu 22.04, Ubuntu 24.10", "Ubuntu twenty-two oh four, Ubuntu twenty-four ten"),
        (
            "macOS 14.2, Java 17, v3.11",
            "macOS fourteen point two, Java seventeen, version three point eleven",
        ),
        ("v2.4.1, Python 3.11.4", "version two point four point one, Python three point eleven point four"),
        (
            "the 3.14 value, version 2.05, Rust 1.80 km",  # no program, a leading zero, a unit
            "the three point one four value, version two point zero five, Rust one point eight zero kilometers",
        ),
    ],
    "times written with an h": [
        ("14h30, at 9h05, at 9h00", "fourteen thirty, at nine oh five, at nine o'clock"),
        (
            "from 9h30 to 17h00, 9h30-17h00",
            "from nine thirty to seventeen hundred, nine thirty to seventeen hundred",
        ),
        # Durations: an hour up to twelve with no word bringing in a time, or a word that
        # makes it one.
        (
            "1h30, 9h05, 2h00, took 14h30",
            "one hour thirty, nine hours five, two hours, took fourteen hours thirty",
        ),
    ],
    "measures before a noun": [
        ("a 2h race, a 5km run, a 10-km run", "a two-hour race, a five-kilometer run, a ten-kilometer run"),
        ("an 18 kg bag, a 2.5 GB file", "an eighteen-kilogram bag, a two point five-gigabyte file"),
        ("the 5km run, a 5 km or so", "the five-kilometer run, a five kilometers or so"),
        # After "the", alone before a plural noun, and before a name in capitals too.
        (
            "the 100m sprint, 2cm cubes, a 512GB SSD, 500mg tablets",
            "the one hundred-meter sprint, two-centimeter cubes, a five hundred twelve-gigabyte SSD, "
            "five hundred-milligram tablets",
        ),
        # A quantity stays plural.
        (
            "it is 100m long, we ran 5km today, costs 2GB of data, the 2GB we saved",
            "it is one hundred meters long, we ran five kilometers today, costs two gigabytes of data, "
            "the two gigabytes we saved",
        ),
        ("a 10 m\u00b2 flat, a 2 m\u00b3 tank", "a ten-square-meter flat, a two-cubic-meter tank"),
        (
            "10 m\u00b2 of floor; the flat is 10 m\u00b2.",
            "ten square meters of floor; the flat is ten square meters.",
        ),
    ],
    "dates with slashes": [
        ("Tue 3/4", "Tuesday March fourth"),
        ("Mon 12/25, Mon 25/12", "Monday December twenty-fifth, Monday the twenty-fifth of December"),
        ("Sat, 10/12/2024 at noon", "Saturday, October twelfth, twenty twenty-four, at noon"),
        ("On Friday 3/4 we meet.", "On Friday March fourth we meet."),
        (
            "sat 3/4 of the way, Thu 4/31",  # no date: the verb, no 31st of April
            "sat three quarters of the way, Thu four over thirty-one",
        ),
        (
            "on 12/25/2024, on 25/12/2024",  # only one of the two can be the month
            "on December twenty-fifth, twenty twenty-four, on the twenty-fifth of December, twenty twenty-four",
        ),
        ("2024/03/15", "the fifteenth of March, twenty twenty-four"),
        ("on 3/4/2025", "on March fourth, twenty twenty-five"),  # March or April: the locale's order
        # Two numbers that may each be the month: the locale's order (`test_dates_in_the_locales_order`).
        (
            "12/05/2026 and 05/12/2026",
            "December fifth, twenty twenty-six, and May twelfth, twenty twenty-six",
        ),
        # A year of two digits; dots or hyphens before a year of four (dots: the day first).
        (
            "25/12/26, 12/25/85",
            "the twenty-fifth of December, twenty twenty-six, December twenty-fifth, nineteen eighty-five",
        ),
        (
            "on 05.12.2026, 5-12-2026",
            "on the fifth of December, twenty twenty-six, May twelfth, twenty twenty-six",
        ),
        (
            "version 1.12.10, 24/7/365, 13/13/2026",  # no date
            "version one point twelve point ten, twenty-four slash seven slash three hundred sixty-five, "
            "thirteen slash thirteen slash twenty twenty-six",
        ),
    ],
    "numbered items": [
        ("5(a)(iii)", "five (a) (three)"),
        (
            "Article 6(1)(f) and Section 2(b)(1)-(2)",
            "Article six (one) (f) and Section two (b) (one) to (two)",
        ),
        ("(i) the buyer, (ii) the seller", "(one) the buyer, (two) the seller"),
        ("under paragraph (iv), see (iii)", "under paragraph (four), see (three)"),
        ("(iii) the agent", "(three) the agent"),
        ("f(x) = 2, the (x) axis, given (iv) fluids", "f(x) equals two, the (x) axis, given (iv) fluids"),
        ("(i.e. this) (mix)", "(that is this) (mix)"),
    ],
    "ratios": [
        ("16:9, 4:3 or 21:9", "sixteen to nine, four to three or twenty-one to nine"),  # one digit after
        # A hundred or more before the colon (it was "one hundred:one"); a time stays a time.
        (
            "Mix 100:1, a 1,000:1 contrast, 3:2 odds, at 10:30.",
            "Mix one hundred to one, a one thousand to one contrast, three to two odds, at ten thirty.",
        ),
        ("aspect ratio 16:10, a 16:10 screen", "aspect ratio sixteen to ten, a sixteen to ten screen"),
        # One to a hundred or more: a dilution, a map's scale (it was "one ten zero zero").
        (
            "a 1:1000 dilution, dilute 1:100, a 1:50,000 map",
            "a one to one thousand dilution, dilute one to one hundred, a one to fifty thousand map",
        ),
        ("John 3:16, at 1:15", "John three, verse sixteen, at one fifteen"),
        # A verse of the Bible: chapter, then verse (they were a ratio, "twenty-three to four",
        # and a time, "one hundred nineteen:one hundred five").
        (
            "Psalm 23:4 and Psalm 119:105.",
            "Psalm twenty-three, verse four and Psalm one hundred nineteen, verse one hundred five.",
        ),
        ("Genesis 1:1-3", "Genesis one, verses one to three"),
        (
            "1 Cor. 13:4\u20137 and Ps. 46:10",
            "First Corinthians thirteen, verses four to seven and Psalm forty-six, verse ten",
        ),
        ("Mark 10:30 pm, meet Mark at 10:30", "Mark ten thirty PM, meet Mark at ten thirty"),
    ],
    "markdown tables, tasks and footnotes": [
        ("| Name | Age |\n|------|:---:|\n| Alice | 30 |", "Name, Age. Alice, thirty."),
        ("- [x] done task\n- [ ] open task", "done task. open task."),
        ("Footnote[^1] here.\n\n[^1]: The note.", "Footnote here. Footnote one: The note."),
        ("a | b", "a, b"),  # one pipe: no table, a pause between its parts
    ],
    "tables and approximations": [
        (
            "Name\tAge\nAlice\t30\nBob\t25",
            "Name, Age. Alice, thirty. Bob, twenty-five.",
        ),  # a spreadsheet's rows
        ("\tindented line", "indented line"),
        # One row alone, three cells or more (its cells ran together: "Total one thousand ... cents
        # twelve point five percent"); two cells in one line are words with a blank between.
        (
            "Total\t$1,234.56\t12.5%",
            "Total, one thousand two hundred thirty-four dollars and fifty-six cents, twelve point five percent.",
        ),
        ("Name:\t\tJohn", "Name: John"),
        ("a ~5 min walk for ~$20", "a about five minutes walk for about twenty dollars"),
        ("see ~/docs", "see home slash docs"),  # not "about": a folder in the home folder
    ],
    "accounting negatives": [
        # An amount in brackets in a row of figures, or labelled as one, is negative.
        (
            "Revenue\t1,200\t(1,234)\t500",
            "Revenue, one thousand two hundred, minus one thousand two hundred thirty-four, five hundred.",
        ),
        (
            "Item\t2023\t2024\nNet\t($1,234.56)\t567",
            "Item, twenty twenty-three, twenty twenty-four. "
            "Net, minus one thousand two hundred thirty-four dollars and fifty-six cents, five hundred sixty-seven.",
        ),
        (
            "Net loss    (1,234)    (567)",
            "Net loss minus one thousand two hundred thirty-four minus five hundred sixty-seven",
        ),
        (
            "Net loss ($1,234.56)",
            "Net loss minus one thousand two hundred thirty-four dollars and fifty-six cents",
        ),
        ("Net income: (1,234)", "Net income: minus one thousand two hundred thirty-four"),
        # A list's number, a year, an aside and a price in another currency stay.
        ("See note (3) below. Choose (3) or (4).", "See note (three) below. Choose (three) or (four)."),
        ("Revenue (2023) was up; Net income (3)", "Revenue (twenty twenty-three) was up; Net income (three)"),
        (
            "a small fee ($5) is due; It costs $50 (\u00a340).",
            "a small fee (five dollars) is due; It costs fifty dollars (forty pounds).",
        ),
        ("Name\tBorn\tAge\nSmith\t(1990)\t35", "Name, Born, Age. Smith, (nineteen ninety), thirty-five."),
        ("Other    12    (1990)", "Other twelve (nineteen ninety)"),
        ("(3) The licensee shall pay 5 dollars.", "(three) The licensee shall pay five dollars."),
    ],
    "basis points": [
        # Where the text speaks of rates, yields or fees: basis points (it was "bps", "bp").
        ("Rates rose 25 bps today.", "Rates rose twenty-five basis points today."),
        (
            "The Fed cut by 25bp, spreads 1 bp wider",
            "The Fed cut by twenty-five basis points, spreads one basis point wider",
        ),
        ("a 25 bp cut in rates", "a twenty-five-basis-point cut in rates"),
        # A modem's bits per second, a DNA's base pairs; alone, as written; Mbps as it was.
        ("a 9600 bps modem", "a nine thousand six hundred bits per second modem"),
        ("a 500 bp fragment of DNA", "a five hundred-base-pair fragment of DNA"),
        ("It was 25 bps.", "It was twenty-five bps."),
        ("a 100 Mbps link, 56 kbps", "a one hundred megabits per second link, fifty-six kilobits per second"),
    ],
    "fractions joined to a measure": [
        # One word with the measure (it was "three quarters-inch", "one half-inch").
        ("a 3/4-inch bolt and 1/2-inch pipe", "a three-quarter-inch bolt and half-inch pipe"),
        (
            "a 1/4-mile track, 5/8-inch, a 2/3-cup",
            "a quarter-mile track, five-eighths-inch, a two-thirds-cup",
        ),
        (
            "a 1 1/2-inch pipe, a 1-1/4-inch drill",
            "a one and a half-inch pipe, a one and a quarter-inch drill",
        ),
        # Apart from the measure, or no fraction: as before.
        ("3/4 inch, Windows 10/11-compatible", "three quarters inch, Windows ten slash eleven-compatible"),
        ("1/2 tsp salt", "half a teaspoon salt"),
    ],
    "decimal commas": [
        # Before a unit, a percent or a degree: a point (it was "two,five kilograms").
        (
            "It weighs 2,5 kg and 0,75 l of water.",
            "It weighs two point five kilograms and zero point seven five liters of water.",
        ),
        (
            "Inflation 2,5% and 21,5 \u00b0C, 12,5 mg/kg",
            "Inflation two point five percent and twenty-one point five degrees Celsius, twelve point five milligrams per kilogram",
        ),
        # Thousands, a number alone, a list and money: as before.
        ("It weighs 2,500 kg.", "It weighs two thousand five hundred kilograms."),
        ("Score 1,5 alone; in 2, 5 kg", "Score one,five alone; in two, five kilograms"),
        ("pay 3,50 \u20ac", "pay three euros and fifty cents"),
    ],
    "powers of ten pasted flat": [
        # A superscript lost in a copy, after a decimal and "x" or after "\u00d7": a power.
        (
            "The value is 1.5 x 10-3 m.",
            "The value is one point five times ten to the power of minus three m.",
        ),
        ("about 2 \u00d7 10-5", "about two times ten to the power of minus five"),
        # E notation, also in capitals and at a sentence's end.
        (
            "Values 1.5e-3 and 6.02E23.",
            "Values one point five times ten to the power of minus three and six point zero two times ten to the power of twenty-three.",
        ),
        # Sets of reps and ranges stay ranges.
        ("3 x 10-12 reps", "three x ten to twelve reps"),
        ("Between 10-3 and 10-20 people.", "Between ten to three and ten to twenty people."),
    ],
    "figures and tables in papers": [
        # A figure's panels from one letter to another; a paper's "Tab." (it was "three b, d", "Tab").
        ("See Fig. 3b\u2013d and Figs. 2 and 3.", "See figure three b to d and figures two and three."),
        (
            "Figure 2a-c and Table 1a\u2013b, panels 4a - f",
            "Figure two a to c and Table one a to b, panels four a to f",
        ),
        ("See Eq. (4) and Tab. 2; Tabs. 1 and 2", "See equation (four) and Table two; Tables one and two"),
        # The key, a figure's number range and a panel with a number after it stay.
        ("Press Tab. Then type 2 words.", "Press Tab. Then type two words."),
        ("Figs. 2\u20134, figure 3a-1", "figures two to four, figure three a one"),
    ],
    "british money and per cent": [
        # Per cent after a number, and pence (it was "p dot c", "fifty p").
        (
            "Rates up 2 p.c. this year, 2.5p.c. in May",
            "Rates up two percent this year, two point five percent in May",
        ),
        ("Rates up 2 p.c. Then down.", "Rates up two percent. Then down."),
        (
            "It costs 50p now, a 20p coin and 1p.",
            "It costs fifty pence now, a twenty pence coin and one penny.",
        ),
        # A C file, a video's lines, pounds and euros with a decimal comma stay as they were.
        ("compile p.c. and main.c now", "compile p dot c. and main dot c now"),
        (
            "a 1080p screen, 5pm, 3pt, the 2p orbital, 4p mode",
            "a ten eighty p screen, five PM, three pt, the two p orbital, four p mode",
        ),
        (
            "It costs \u00a32.50 or \u20ac1,50.",
            "It costs two pounds and fifty pence or one euro and fifty cents.",
        ),
    ],
    "dates and times without their year or colon": [
        # A date after a word that brings one in (it was "twelve over five").
        ("The rent is due 12/05.", "The rent is due December fifth."),
        ("Expires 12/25, since 25/12", "Expires December twenty-fifth, since the twenty-fifth of December"),
        ("on 12/05 and on 10/10", "on December fifth and on October tenth"),
        # A payment card's expiry is a month and a year.
        (
            "Card valid thru 08/27. Exp. 12/25",
            "Card valid thru August twenty twenty-seven. Exp. December twenty twenty-five",
        ),
        # A share after "on", "by" or "from", odds, and a fraction alone stay.
        (
            "by 3/4 we won, on 3/4 of the cases, from 1/2 to 3/4",
            "by three quarters we won, on three quarters of the cases, from one half to three quarters",
        ),
        ("Bet on 3/1 odds. Add 12/05", "Bet on three over one odds. Add twelve over five"),
        # A British time with a dot before what leaves then (it was "two point one zero").
        (
            "Catch the 2.10 train, the 19.45 showing",
            "Catch the two ten train, the nineteen forty-five showing",
        ),
        ("the 2.10 mark and 2.10 trains", "the two point one zero mark and two point one zero trains"),
        # A time in UTC, "Z" (it was "fourteen thirtyZ").
        (
            "At 2026-12-06T14:30 and 14:30Z",
            "At the sixth of December, twenty twenty-six, at fourteen thirty and fourteen thirty UTC",
        ),
    ],
    "windows paths": [
        # The drive by its letter, the backslashes said (they were dropped).
        (
            "Open C:\\Users\\Ann\\Documents\\report.docx now.",
            "Open C drive, Users backslash Ann backslash Documents backslash report dot docx now.",
        ),
        ("Copy it to \\\\server\\share now.", "Copy it to double backslash server backslash share now."),
        (
            "Run C:\\Program Files\\My App\\app.exe; save to D:\\ and quit.",
            "Run C drive, Program Files backslash My App backslash app dot exe; save to D drive and quit.",
        ),
        # A lone backslash, an escape and the drive's name stay as they were.
        ("use \\n in strings, a \\ b, the C: drive", "use n in strings, a b, the C: drive"),
    ],
    "tennis results": [
        # A tie-break's points after the set (it was "seven to six (five)"), and the result's
        # other sets as scores.
        ("He won 7-6(5) 6-4.", "He won seven six, tie-break five, six four."),
        ("lost 6-7 (3-7), 6-3", "lost six seven, tie-break three seven, six three"),
        # Without a tie-break, a range; a provision's parts and pages stay.
        ("won 6-4 6-3 in straight sets", "won six to four six to three in straight sets"),
        (
            "Article 6(1)(f) and 7(5), pages 6-7 (see above)",
            "Article six (one) (f) and seven (five), pages six to seven (see above)",
        ),
    ],
    "codes and references": [
        (
            "ISBN 978-3-16-148410-0",
            "ISBN nine seven eight, three, one six, one four eight four one zero, zero",
        ),
        ("Call 1-800-555-0199.", "Call one, eight zero zero, five five five, zero one nine nine."),
        ("Call 911 or room 911", "Call nine one one or room nine hundred eleven"),  # a service number
        (
            "Order 123456789 of 8000000000",
            "Order one two three four five six seven eight nine of eight billion",
        ),
        (
            "card 4111 1111 1111 1111",
            "card four one one one, one one one one, one one one one, one one one one",
        ),
        ("code 1Z99AB1234", "code one Z nine nine A B one two three four"),
        ("COVID19", "COVID nineteen"),
        ("Paris.[1] It was built.[2][3]", "Paris. It was built."),  # copied from an encyclopedia
        ("It is old[4] and tall.[citation needed]", "It is old and tall."),
        ("It was clear.12 Then", "It was clear. Then"),  # a note's number as a PDF has it
        # Also after a closing quote or bracket (it was 'said."three Then', "above)point four").
        ('he said."3 Then (see above).4 Then', 'he said." Then (see above). Then'),
        (
            "The cost was 1.12 The end, H.264 Video",
            "The cost was one point one two The end, H two sixty-four Video",
        ),
        ("items [1, 2]", "items one, two"),
        ("pp. 12-15, ch. 3, p. 7, vol. 2", "pages twelve to fifteen, chapter three, page seven, volume two"),
    ],
    "phone numbers": [
        ("+1 555 123 4567", "plus one, five five five, one two three, four five six seven"),
        ("(555) 123-4567", "five five five, one two three, four five six seven"),
        ("555-1234", "five five five, one two three four"),
        # National numbers with their leading zero, as Britain and Australia write them.
        ("Call 020 7946 0958.", "Call zero two zero, seven nine four six, zero nine five eight."),
        (
            "0161 496 0000 or 07700 900123",
            "zero one six one, four nine six, zero zero zero zero or "
            "zero seven seven zero zero, nine zero zero one two three",
        ),
        ("02 9876 5432", "zero two, nine eight seven six, five four three two"),
        ("at 0800 1200 1600", "at zero eight zero zero twelve hundred sixteen hundred"),  # not ten digits
        # A toll-free number spelled as words, as its adverts say it (it was "one to eight
        # hundred-FLOWERS"); a range before capitals is not one.
        ("Call 1-800-FLOWERS today.", "Call one eight hundred flowers today."),
        ("888-GOT-JUNK or 1.800.CONTACTS", "eight eight eight got junk or one eight hundred contacts"),
        ("Call 1-877-KARS-4-KIDS today.", "Call one eight seven seven kars four kids today."),
        ("Pages 1-800 FOR ALL", "Pages one to eight hundred FOR ALL"),
        ("1-800-356-9377", "one, eight zero zero, three five six, nine three seven seven"),
        # The area's code in brackets (it was "(zero two zero) seven thousand nine hundred ...").
        (
            "(020) 7946 0958, (03) 9123 4567",
            "zero two zero, seven nine four six, zero nine five eight, zero three, nine one two three, "
            "four five six seven",
        ),
        ("(0161) 496 0000", "zero one six one, four nine six, zero zero zero zero"),
        ("(02) 12 and (0161) 496", "(zero two) twelve and (zero one six one) four hundred ninety-six"),
        # A sign before a decimal is no country's code (it was "plus one two, three percent").
        (
            "Change: +12.3%, +10.25 and +100.5",
            "Change: plus twelve point three percent, plus ten point two five and plus one hundred point five",
        ),
        ("+49 30 123456", "plus four nine, three zero, one two three four five six"),
    ],
    "ranges and fractions": [
        (
            "Rated 4.5/5, score 9/10, 4/5 stars",
            "Rated four point five out of five, score nine out of ten, four out of five stars",
        ),
        (
            "a 1:1 meeting, 3.5M users, \u00a32bn",
            "a one to one meeting, three point five million users, two billion pounds",
        ),
        ("the 1980s\u20131990s, ext. 12", "the nineteen eighties to nineteen nineties, extension twelve"),
        (
            "70\u00b0F\u201380\u00b0F, the 1st\u20133rd",
            "seventy degrees Fahrenheit to eighty degrees Fahrenheit, the first to third",
        ),
        (
            "Windows 10/11, a 50/50 chance, BP 120/80",
            "Windows ten slash eleven, a fifty fifty chance, BP one hundred twenty over eighty",
        ),
        ("pages 5-10", "pages five to ten"),
        ("1990\u20132000", "nineteen ninety to two thousand"),
        ("1/2 cup", "one half cup"),
        ("3/4", "three quarters"),
        ("2/3", "two thirds"),
        # A hundred shared out is said as its numbers, as "50/50" (it was "eighty over twenty").
        ("The 80/20 rule.", "The eighty twenty rule."),
        (
            "60/40, 30/70, 95/5 and 40/30/30 splits",
            "sixty forty, thirty seventy, ninety-five five and forty thirty thirty splits",
        ),
        (
            "3/4 of them, 3/16, score 3/10, 8/10, 1/99",
            "three quarters of them, three sixteenths, score three out of ten, eight tenths, one over ninety-nine",
        ),
        # A denominator's ordinal ending (it was "two thirds rds", "one or third").
        ("2/3rds of voters, 1/3rd cup, 3/4ths", "two thirds of voters, one third cup, three quarters"),
        ("1/3 of them, 3/4 thin", "one third of them, three quarters thin"),
        # One of a series after what counts it (it was "Step two fifths", "Question three tenths").
        (
            "Step 2/5: Install. Question 3/10, Part 1/3, Day 3/30, page 12/40",
            "Step two of five: Install. Question three of ten, Part one of three, Day three of thirty, "
            "page twelve of forty",
        ),
        ("Step 5/5 done, Episode 3/8", "Step five of five done, Episode three of eight"),
        # A fraction of a measure after such a word, and numbers that are no place in a series.
        (
            "a step 1/2 inch high, Day 1/2 cup, Step 6/5, Part 0/3",
            "a step one half inch high, Day one half cup, Step six over five, Part zero thirds",
        ),
    ],
    "addresses": [
        ("https://example.com/docs", "example dot com slash docs"),
        (
            "https://github.com/hexgrad/kokoro/blob/main/pipeline.py",
            "github dot com slash hexgrad slash kokoro slash blob slash main slash pipeline dot py",
        ),
        ("see www.python.org/library?x=1.", "see python dot org slash library."),
        # A host with its port was dropped whole with the port's digits.
        ("Open http://localhost:3000 now", "Open localhost colon three thousand now"),
        (
            "http://localhost:8080/admin or localhost:5000",
            "localhost colon eighty eighty slash admin or localhost colon five thousand",
        ),
        (
            "http://127.0.0.1:8000/docs, https://example.com:8443/login",
            "one hundred twenty-seven dot zero dot zero dot one colon eight thousand slash docs, "
            "example dot com colon eighty-four forty-three slash login",
        ),
        ("https://github.com/u/r/issues/1234", "github dot com slash u slash r slash issues"),  # an id
        ("jane.doe@example.org", "jane dot doe at example dot org"),
        ("tal197@users.sf.net", "tal one nine seven at users dot sf dot net"),  # digits one by one
        (
            "mail bob_smith+news@mail.example.co.uk",
            "mail bob underscore smith plus news at mail dot example dot co dot uk",
        ),
    ],
    "abbreviations": [
        ("e.g. this", "for example this"),
        ("i.e. that", "that is that"),
        ("apples, pears, etc. Then more.", "apples, pears, et cetera. Then more."),
        ("apples etc. and pears", "apples et cetera and pears"),
        ("cats vs. dogs", "cats versus dogs"),
        ("St. Mary's St.", "Saint Mary's Street."),
        ("Mr. and Mrs. Jones", "Mister and Missus Jones"),
        ("No. 5", "number five"),
        # A state's short name after a town or a party's letter (it was "Calif." and a pause).
        (
            "Sacramento, Calif., on Tuesday; MIAMI, Fla. (AP); Seattle, Wash. He left.",
            "Sacramento, California, on Tuesday; MIAMI, Florida (AP); Seattle, Washington. He left.",
        ),
        (
            "Sen. Warren (D-Mass.), R-Pa., D-Calif. and others",
            "Senator Warren (D-Massachusetts), R-Pennsylvania, D-California and others",
        ),
        ("Yes, Miss. Thanks, Pa. Wash. the cups", "Yes, Miss. Thanks, Pa. Wash. the cups"),  # words, titles
        ("Figs. 4-6 and Eqs. 2, 3", "figures four to six and equations two, three"),
        ("Schedule 2, para. 3; paras. 4-6", "Schedule two, paragraph three; paragraphs four to six"),
        (
            "Est. 1892. EST. 1970 in Boston",
            "Established eighteen ninety-two. Established nineteen seventy in Boston",
        ),
        ("Est. 1500 deaths", "Est. fifteen hundred deaths"),  # an estimate
        # A weekday's short name with its dot (it was "tooz"); ranges with dots were flags.
        ("on Tues. the 14th, Thurs. at 9, Weds.?", "on Tuesday the fourteenth, Thursday at nine, Wednesday?"),
        ("Open Mon.-Fri., Tue.-Thu. 9-5", "Open Monday to Friday, Tuesday to Thursday nine to five"),
        # A rank before a title: no sentence's end (it was "a Senior. Software Engineer").
        (
            "a Sr. Software Engineer, our Jr. Developer. John Smith Sr. He left.",
            "a Senior Software Engineer, our Junior Developer. John Smith Senior. He left.",
        ),
    ],
    "roman numerals": [
        ("World War II", "World War two"),
        ("Chapter IV", "Chapter four"),
        ("Henry VIII and Elizabeth II", "Henry the eighth and Elizabeth the second"),
        ("Malcolm X", "Malcolm X"),
        ("I think I can", "I think I can"),
        ("an IV drip", "an IV drip"),
        ("see chapter IV and part II", "see chapter four and part two"),
        ("in part I think so", "in part I think so"),  # the pronoun
        # After "Title", "type" and "Bowl" (it was "Title the ninth", "type eye eye", "LVIII").
        ("Title IX and Title VII", "Title nine and Title seven"),
        ("type II diabetes, type I diabetes", "type two diabetes, type I diabetes"),
        (
            "Super Bowl LVIII, Super Bowl XL; Chapter XLII",
            "Super Bowl fifty-eight, Super Bowl forty; Chapter forty-two",
        ),
        ("Type L or Type XL, the title I chose", "Type L or Type XL, the title I chose"),  # a letter, a size
        # A sequel, a game, a council: a number (it was "Rocky the second", "Star Wars the fourth").
        ("Rocky II, Star Wars IV, Final Fantasy VII", "Rocky two, Star Wars four, Final Fantasy seven"),
        ("Grand Theft Auto V and Vatican II", "Grand Theft Auto five and Vatican two"),
        # Kings, popes and sons stay ordinals; the pronoun and a word in capitals stay.
        (
            "Queen Elizabeth II, Pope John Paul II, Robert Smith III",
            "Queen Elizabeth the second, Pope John Paul the second, Robert Smith the third",
        ),
        ("In the Star Wars I saw, Rocky I think. MIX it.", "In the Star Wars I saw, Rocky I think. MIX it."),
    ],
    "symbols": [
        ("Tom & Jerry", "Tom and Jerry"),
        ("me @ home", "me at home"),
        ("x = 5", "x equals five"),
        ("and/or he/she", "and or he or she"),
        ("#1 fan", "number one fan"),
        ("#python rocks", "python rocks"),
        ("2x faster", "two times faster"),
        ("wait \u2014 what", "wait, what"),
        ("a*b~c", "a b c"),
        ("C# and F# minor, 100px wide", "C sharp and F sharp minor, one hundred pixels wide"),
        ("use -v or --no-edit; well--known", "use dash v or dash dash no-edit; well, known"),  # flags
        (
            "x \u2265 2, y \u2264 3, z \u2260 4",
            "x greater than or equal to two, y less than or equal to three, z not equal to four",
        ),
        ("if n >= 10 and m != 3", "if n greater than or equal to ten and m not equal to three"),
        ("p < 0.05 and a > b; <b>x</b>", "p less than zero point zero five and a greater than b; x"),
        ("Paris \u2192 Rome, \u2248 5 h", "Paris to Rome, approximately five hours"),
        # A name of two codes or letters, not a choice.
        ("TCP/IP, I/O, A/B testing, AC/DC", "TCP IP, I O, A B testing, AC DC"),
        ("a PS/2 port, OS/2, S/MIME, ISO/IEC standards", "a PS two port, OS two, S MIME, ISO IEC standards"),
        (
            "SSL/TLS, YES/NO, HEVC/H.265, C/C++",
            "SSL or TLS, YES or NO, HEVC or H two sixty-five, C or C plus plus",
        ),
        ("See §§ 12-14 and § 4(b)", "See sections twelve to fourteen and section four (b)"),
        ("npm install && npm run build", "npm install and npm run build"),
        # A slash after a price is per; between currencies, a choice.
        (
            "$3/dozen, £2/bag, $5/person",
            "three dollars per dozen, two pounds per bag, five dollars per person",
        ),
        ("prices in dollars/euros", "prices in dollars or euros"),
    ],
    "markup": [
        ("**bold** <b>html</b>", "bold html"),
        ("*em* and _em_ and `code`", "em and em and code"),
        ("[the docs](https://example.com/x)", "the docs"),
        ("<p>One</p><p>Two</p>", "One Two"),
        ("<script>var x = 1;</script>Text", "Text"),
        ("# Title\n- item one\n- item two", "Title. item one. item two."),
        ("Fish &amp; chips", "Fish and chips"),
    ],
    "unicode": [
        # The numero sign (NFKC made it "No", read as the word).
        (
            "\u2116 5, \u211612, N\u00ba 7, N\u00b0 3",
            "number five, number twelve, number seven, number three",
        ),
        ("No. 5, say No 5 times", "number five, say No five times"),
        ("caf\u00e9 na\u00efve Zo\u00eb", "cafe naive Zoe"),
        ("Stra\u00dfe", "Strasse"),
        ("\u201cquoted\u201d it\u2019s", '"quoted" it\'s'),
        ("zero\u200bwidth\u00adsoft", "zerowidthsoft"),
        ("\uff21\uff22\uff23", "ABC"),
        ("I love it \U0001f600\U0001f44d\U0001f3fd!", "I love it!"),
        ("I \u2665 NY, I \u2764 Python, we \u2764\ufe0f you", "I love NY, I love Python, we love you"),
        ("Happy birthday \u2764\ufe0f have fun \u2764", "Happy birthday have fun"),  # no verb's place
        ("Hello\x00\x07 world\x1b[0m", "Hello world"),
        ("tab\tand\r\nnewline", "tab and newline"),
        ("infor-\nmation and well-\nKnown", "information and well Known"),
    ],
    "marks and ratings": [
        ("\u00a9 2024 Acme", "copyright twenty twenty-four Acme"),
        (
            "Copyright \u00a9 2024, Copyright\u00a92025",
            "Copyright twenty twenty-four, Copyright twenty twenty-five",
        ),
        ("&copy; 2024 Acme", "copyright twenty twenty-four Acme"),
        ("\u00ae Acme, the \u2122 sign", "registered Acme, the trademark sign"),
        ("Acme\u00ae and Foo\u2122 products", "Acme and Foo products"),  # after a name: not said
        ("Rated \u2605\u2605\u2605\u2605\u2606 by users", "Rated four out of five stars by users"),
        ("\u2605\u2605\u2605\u2605\u2605, a \u2605 next to it", "five stars, a star next to it"),
    ],
    "technical writing": [
        ("at 50 MB/s it takes ~54 s.", "at fifty megabytes per second it takes about fifty-four seconds."),
        ("a 100 Mbps link, 1 Gbps", "a one hundred megabits per second link, one gigabit per second"),
        ("in 2s and 3s", "in two s and three s"),  # a plural, not seconds
        (
            "Your PIN is 0042, zip code 90210.",
            "Your PIN is zero zero four two, zip code nine zero two one zero.",
        ),
        ("We shipped v2.4.1 today", "We shipped version two point four point one today"),
        ("up 8% YoY and 2% QoQ", "up eight percent year over year and two percent quarter over quarter"),
        ("Open Settings > Privacy > Location.", "Open Settings, Privacy, Location."),
        ("Go to Edit > Find and Replace.", "Go to Edit, Find and Replace."),
        ("If Count > Limit, stop.", "If Count greater than Limit, stop."),  # a comparison
        ("Thanks :) see you ;-) soon :D", "Thanks see you soon"),
        ("I <3 NY. Open C:/tmp, 8) last", "I love NY. Open C: tmp, eight) last"),
        ("In src/lib.rs, Cargo has it", "In src slash lib dot rs, Cargo has it"),
        (
            "edit ~/.config/tray-reader/settings.toml",
            "edit home slash dot config slash tray reader slash settings dot toml",
        ),
        ("see ./run.sh and /usr/bin/env", "see dot slash run dot sh and slash usr slash bin slash env"),
        ("Rename notes.txt to Node.js.", "Rename notes dot txt to Node dot js."),
        ("and/or he/she/they, yes/no, TCP/IP", "and or he or she or they, yes or no, TCP IP"),  # not paths
        # A path without its root: a part only a path has, or a file in it, or a folder's name.
        ("Edit debian/control and usr/bin", "Edit debian slash control and usr slash bin"),
        (
            "see src/main, lib/utils and var/log/syslog",
            "see src slash main, lib slash utils and var slash log slash syslog",
        ),
        (
            "see .github/workflows and .config/nvim",
            "see dot github slash workflows and dot config slash nvim",
        ),
        ("Copy it to /opt, /usr or /etc.", "Copy it to slash opt, slash usr or slash E T C."),
        ("Files in etc/apt and usr/local/etc.", "Files in E T C slash apt and usr slash local slash E T C."),
        # A choice between two words stays one, also where one is a folder's name elsewhere.
        (
            "either/or, home/office, dev/prod, share/like, var/let, Debian/Ubuntu",
            "either or, home or office, dev or prod, share or like, var or let, Debian or Ubuntu",
        ),
        # Two slashes or more from a folder of the root, with a folder's name or a part that is no
        # word: a path (it was "home per user or docs"); a rate and a choice stay.
        ("The file is in home/user/docs.", "The file is in home slash user slash docs."),
        ("see var/www/html and home/jdk/bin", "see var slash www slash html and home slash jdk slash bin"),
        ("$5/user/month, home/office/school", "five dollars per user per month, home or office or school"),
        # A name with an underscore is code's: the slash is a path's (it was "node modules or foo").
        ("node_modules/foo is big", "node modules slash foo is big"),
        ("site_packages/foo, bytes_sent/s", "site packages slash foo, bytes sent per second"),
        ("g_object_ref/unref, gtk_widget_set/get_name", "g object ref or unref, gtk widget set or get name"),
        ("Press \u2190 or \u2192 to move, A \u2192 B", "Press left arrow or right arrow to move, A to B"),
        ("Press / to search, press ? for help", "Press slash to search, press question mark for help"),
    ],
    "recipes, rules and chat": [
        (
            "Mix 2 1/2 cups flour, 1 tsp. salt, 3 tbsp butter",
            "Mix two and a half cups flour, one teaspoon salt, three tablespoons butter",
        ),
        ("1 3/4 inch, 2 1/3 cups", "one and three quarters inch, two and a third cups"),
        (
            "S.I. 2019/123 and case 17/2023",
            "S.I. twenty nineteen slash one hundred twenty-three and case seventeen slash twenty twenty-three",
        ),
        ("see Art. 5 and Eq. (4)", "see Article five and equation (four)"),
        ("Open Mon\u2013Fri, Sat - Sun closed", "Open Monday to Friday, Saturday to Sunday closed"),
        ("tea w/o sugar, w/ milk, in 5 mins", "tea without sugar, with milk, in five minutes"),
        (
            "late b/c the bus broke. B/c of rain, a/b/c, a B/C grade",
            "late because the bus broke. Because of rain, a or b or c, a B C grade",
        ),
        (
            "omg thx, idk what to say lol. btw imo it's fine, tbh.",
            "OMG thanks, IDK what to say LOL. BTW IMO it's fine, TBH.",
        ),
        ("fyi brb, afaik smh irl imho pls plz", "FYI BRB, AFAIK SMH IRL IMHO please please"),
        ("Lol that's great. Thx! Imo it's fine.", "LOL that's great. Thanks! IMO it's fine."),
        ("Imo State is in Nigeria; in Imo.", "Imo State is in Nigeria; in Imo."),  # a place
        ("the lol-cat, @lol, THX sound", "the lol-cat, at lol, THX sound"),
        ("np, see you tmrw. Tmr then, np!", "no problem, see you tomorrow. Tomorrow then, no problem!"),
        ("import numpy as np; np.array", "import numpy as np; np.array"),  # a module's name
        ("ur welcome, is that ur car", "your welcome, is that your car"),
        ("Ur was a city of Sumer.", "Ur was a city of Sumer."),  # a name
    ],
    "encyclopedia and business": [
        (
            "Book room 4B for 2-3pm, 10\u201311 a.m.",
            "Book room four B for two to three PM, ten to eleven AM.",
        ),
        ("Jane Doe | Senior PM | ACME Corp.", "Jane Doe, Senior PM, ACME Corp."),
        ("after 9/11, a 50-50 chance", "after nine eleven, a fifty-fifty chance"),
        ("Sen. Warren, Gov. Newsom, Lt. Dan", "Senator Warren, Governor Newsom, Lieutenant Dan"),
        ("a 2\u00bd-hour debate, 3\u00bc miles", "a two and a half-hour debate, three and a quarter miles"),
        ("scored 31 pts", "scored thirty-one points"),
        (
            "Einstein (/\u02c8a\u026ansta\u026an/; German: [\u02c8alb\u025b\u0250t]; 14 March 1879 \u2013 18 April 1955) was",
            "Einstein (German; the fourteenth of March, eighteen seventy-nine, to the eighteenth of April, "
            "nineteen fifty-five) was",
        ),
        ("(2019 est.), c. 20 million", "(twenty nineteen estimate), circa twenty million"),
        ("1,234 m a.s.l. today", "one thousand two hundred thirty-four meters above sea level today"),
        (
            "FY2023 P/E ratio, EPS $3.10/share",
            "F Y twenty twenty-three P E ratio, EPS three dollars and ten cents per share",
        ),
        (
            "On 2024-03-15T10:30:00Z it failed",
            "On the fifteenth of March, twenty twenty-four, at ten thirty UTC it failed",
        ),
        ("retry after 30s, in his 30s", "retry after thirty seconds, in his thirties"),
        ("Jan 5\u00b0, Mar 3%", "Jan five degrees, Mar three percent"),
    ],
    "release notes, manuals and licences": [
        # A version at a sentence's end was read digit by digit between full stops.
        (
            "Update to 2.4.1. Added in 7.53.0.",
            "Update to two point four point one. Added in seven point fifty-three point zero.",
        ),
        ("#### Changed in v0.4.0", "Changed in version zero point four point zero."),
        (
            "It is 3.5. See 10.0.0.1 here",
            "It is three point five. See ten point zero point zero point one here",
        ),
        # A package's name and release joined by a hyphen.
        (
            "[bug introduced in coreutils-8.32], Groff-1.17, gcc-12.2",
            "bug introduced in coreutils eight point thirty-two, Groff one point seventeen, gcc twelve point two",
        ),
        (
            "COVID-19.5, x-1.25, 5-10.25",
            "COVID nineteen point five, x one point two five, five to ten point two five",
        ),
        # A manual's footer: a version, then a month and a year (not "nine.the first of September").
        ("GNU coreutils 9.1 September 2022", "GNU coreutils nine point one September twenty twenty-two"),
        ("on 3 May 2024", "on the third of May, twenty twenty-four"),
        (
            "a little HTTP/1.1 library, HTTP/2 and HTTP/HTTPS",
            "a little HTTP one point one library, HTTP two and HTTP or HTTPS",
        ),
        (
            "copies 100 KiB of data, 4 GiB, 1 MiB",
            "copies one hundred kibibytes of data, four gibibytes, one mebibyte",
        ),
        # Options in manuals: with an optional value, in quotes, in brackets, or long with one dash.
        (
            "--backup[=CONTROL] make a backup, like --color[=WHEN]",
            "dash dash backup CONTROL make a backup, like dash dash color WHEN",
        ),
        ("'ls -v' and 'sort -V', use getcap [-r]", "ls dash v' and 'sort dash V', use getcap dash r"),
        (
            "the -print action, -maxdepth 0 and -files0-from, gcc -march",
            "the dash print action, dash maxdepth zero and dash files zero-from, gcc dash march",
        ),
        (
            'Add "-W/--dwarf" to objdump, -h/--help',
            'Add " dash W or dash dash dwarf" to objdump, dash h or dash dash help',
        ),
        (
            "well-known, pre- and post-war, a -5 value, supporting %-formatting",
            "well-known, pre and post-war, a minus five value, supporting percent -formatting",
        ),
        # The copyright sign as typed.
        (
            "Copyright (C) 2007 Free Software Foundation, Inc.",
            "Copyright two thousand seven Free Software Foundation, Incorporated.",
        ),
        (
            "COPYRIGHT (c) The Regents; (c) 2013, Bastian",
            "COPYRIGHT The Regents; copyright twenty thirteen, Bastian",
        ),
        ("(c) You must retain; Section 4(c) 2019", "(c) You must retain; Section four (c) twenty nineteen"),
        # A list item wrapped onto indented lines ends once, at its end (a full stop was put at
        # the end of its first line).
        (
            "* more robust than asyncio on Python\n    3.8)\n* Fix the crash when the\n  icon is hidden\n* Done",
            "more robust than asyncio on Python three point eight). Fix the crash when the icon is hidden. Done.",
        ),
        ("- one\n- two\n# Heading\n  text", "one. two. Heading. text"),
        (">>> median([2, 3])\n    2.5", "median(two, three). two point five"),  # a doctest's output
        ("compatible, eg. Python", "compatible, for example Python"),
        # A name with a number in it is said as words, not spelled; a code still is.
        (
            "command1 and expression2, libgcrypt20, bfloat16, resize2fs",
            "command one and expression two, libgcrypt twenty, bfloat sixteen, resize two F S",
        ),
        (
            "code 1Z99AB1234, INV20240015, X7K9P2QW, deadbeef1234, allowZip64",
            "code one Z nine nine A B one two three four, I N V two zero two four zero zero one five, "
            "X seven K nine P two Q W, D E A D B E E F one two three four, A L L O W Z I P six four",
        ),
        # A slash before a number, after "w" before a word, in a path with a variable, in a name.
        (
            "Fix PR target/106482, fix w/cmake, GNU make on OS/2",
            "Fix PR target slash one hundred six thousand four hundred eighty-two, fix with cmake, "
            "GNU make on OS two",
        ),
        (
            "w/o sugar, r/w access, yes/no, Windows 10/11",
            "without sugar, r or w access, yes or no, Windows ten slash eleven",
        ),
        (
            "adjust /proc/$pid/cmdline and $HOME/.config/app",
            "adjust slash proc slash pid slash cmdline and HOME slash dot config slash app",
        ),
        ("sys.argv[0] is set. It was built.[1][2] Then", "sys.argv zero is set. It was built. Then"),
        # A file ending alone, and a file in the home folder.
        (
            "writes it (`.ogg`, `.flac`, or `.mp3`) for the .deb package",
            "writes it (dot ogg, dot flac, or dot mp three) for the dot deb package",
        ),
        ("ok.so, file.txt, 0.5.tar", "ok.so, file dot txt, zero dot five dot tar"),
        (
            "reads ~/.bashrc, ~/.bash_profile and ~/Documents",
            "reads home slash dot bashrc, home slash dot bash underscore profile and home slash Documents",
        ),
        ("~5 min, C:/tmp", "about five minutes, C: tmp"),
    ],
    "web pages, news and social posts": [
        # A line's separators are pauses; a link's arrow is not said ("Read more to").
        ("Home \u203a Blog \u203a Post", "Home, Blog, Post"),
        (
            "Terms of Service \u00b7 Privacy Policy \u00b7 Contact Us",
            "Terms of Service, Privacy Policy, Contact Us",
        ),
        ("Home \u00bb Blog \u00bb Post", "Home, Blog, Post"),
        ("Read more \u2192", "Read more"),
        ("\u2190 Back", "Back"),
        ("Next \u00bb", "Next"),
        ("press \u2192 to go on, A \u2192 B", "press right arrow to go on, A to B"),
        ("\u00ab Bonjour \u00bb dit-il", '" Bonjour " dit-il'),
        ("\u2022 item one", "item one."),
        # Counts in thousands; a resolution or a race is still "K".
        (
            "1.2K shares, 45K likes, (2.3K)",
            "one point two thousand shares, forty-five thousand likes, (two point three thousand)",
        ),
        (
            "a 5k run, a 4K TV, a 2.8K OLED display, clips (2K)",
            "a five k run, a four K TV, a two point eight K OLED display, clips (two K)",
        ),
        ("hit $3tn, 3.4M views", "hit three trillion dollars, three point four million views"),
        # "m" and "k" before what is counted in millions and thousands (it was "five meters users").
        ("We have 5m users.", "We have five million users."),
        (
            "100k users, 100K users, 2.5m downloads",
            "one hundred thousand users, one hundred thousand users, two point five million downloads",
        ),
        ("10K+ users, join 50k+", "ten thousand plus users, join fifty thousand plus"),  # was "ten K plus"
        # A processor's model is no range (it was "i seven to twelve thousand seven hundred K").
        (
            "an i7-12700K, Xeon E5-2690",
            "an i seven twelve thousand seven hundred K, Xeon E five two thousand six hundred ninety",
        ),
        (
            "pages 10-20, aged 5-12, B-52, PG-13",
            "pages ten to twenty, aged five to twelve, B fifty-two, PG thirteen",
        ),
        (
            "5m away, 5m long, 5m tall, a 5k run, $5m deal, 5m cables",
            "five meters away, five meters long, five meters tall, a five k run, five million dollars deal, "
            "five-meter cables",
        ),
        (
            "a range of 5.25%-5.5%, $5-$10",
            "a range of five point two five percent to five point five percent, five dollars to ten dollars",
        ),
        ("a -5% change, 5% - 3%", "a minus five percent change, five percent, three percent"),
        (
            "rose 0.3% m/m and 3.1% y/y",
            "rose zero point three percent month over month and three point one percent year over year",
        ),
        ("5 min read, 12-min read, a 5 min walk", "five-minute read, twelve-minute read, a five-minute walk"),
        (
            "3d ago, 5m ago, 1w ago, 2h ago, 3 days ago",
            "three days ago, five minutes ago, one week ago, two hours ago, three days ago",
        ),
        ("a 3d model, 5m long", "a three d model, five meters long"),
        ("(Photo by John Smith/Getty Images)", "(Photo by John Smith, Getty Images)"),
        ("the image/video toggle", "the image or video toggle"),
        (
            "10/10 would recommend, 5/5, 50/50 chance, 20/20 vision",
            "ten out of ten would recommend, five out of five, fifty fifty chance, twenty twenty vision",
        ),
        # Hashtags said as their words; a number and a colour are not hashtags.
        (
            "#ThrowbackThursday #MeToo #100DaysOfCode #WWDC24",
            "Throwback Thursday Me Too one hundred Days Of Code WWDC twenty-four",
        ),
        (
            "We're #1! issue #12, color #FF0000, C# and F#",
            "We're number one! issue number twelve, color FF zero zero zero zero, C sharp and F sharp",
        ),
        ("r/AskReddit by u/dev_guy", "r slash AskReddit by u slash dev guy"),
        ("r/w access, 300 r/min", "r or w access, three hundred r per minute"),
    ],
    "fiction and school texts": [
        ("CHAPTER IV", "CHAPTER four"),
        ("PART II: The Return", "PART two: The Return"),
        ("in part I think", "in part I think"),
        # A numeral in capitals alone on its line is a heading.
        ("II.", "two."),
        ("IV", "four"),
        ("I.", "I."),
        ("XXX", "XXX"),
        ("ii.", "ii."),
        (
            "Grade: A-. She was an A- student; B+ work",
            "Grade: A minus. She was an A minus student; B plus work",
        ),
        ("got a C- in C++", "got a C minus in C plus plus"),
        ("an A-\nlist actor, a B- and C-grade school", "an A list actor, a B and C-grade school"),
        ("Roe v. Wade, Brown v. Board of Education", "Roe versus Wade, Brown versus Board of Education"),
        ("This has been widely reported [12].", "This has been widely reported."),
        ("confirmed [7\u20139], and", "confirmed, and"),
        ("see [12]. It returns [1].", "see twelve. It returns one."),
        # Between a name and its verb, or with "in" after a verb that cites: not read.
        ("Smith [3] found that, as shown in [12, 14], it works.", "Smith found that, as shown, it works."),
        ("Lee et al. [4] showed it, as proposed in [5] and [6].", "Lee et al. showed it, as proposed."),
        ("Press [1] to go; if x not in [1, 2]: stop", "Press one to go; if x not in one, two: stop"),
        ("See [the docs](https://example.com), a claim [sic]", "See the docs, a claim sic"),
        # An encyclopedia's editorial tags, after a blank too: not read (it was "so citation needed").
        ("He said so [citation needed] and left [clarification needed].", "He said so and left."),
        ("The party [who?] won [when?]; experts [according to whom?] agree", "The party won; experts agree"),
        ("The claim [dubious \u2013 discuss] is old [full citation needed]", "The claim is old"),
        ("It grew[original research?] fast [unreliable source?], by far[by whom?]", "It grew fast, by far"),
        ("Early life[edit]\nHe was born [year needed] in York.", "Early life He was born in York."),
        ("History [edit]\nClick [Edit] to change it", "History Click Edit to change it"),  # a button stays
        # A reference glued to its word: the word is read, the reference is not; a range or list too.
        ("a[3] and the results[12] show it", "a and the results show it"),
        ("It is a word.[3] It is a word,[3][4] and more", "It is a word. It is a word, and more"),
        ("the results[3-5] show, as others[3, 4] found[6,7]", "the results show, as others found"),
        # An index in code is read (it was "Set arr to five and x to two"): a letter code counts
        # with, a name, "=", a member, a call, a word of code's, or another index in the text.
        ("Set arr[3] to 5 and x[i] to 2.", "Set arr three to five and x i to two."),
        ("Set total[3] to 5 and x[i] to 2.", "Set total three to five and x i to two."),
        ("if a[1] == b, x[2]=5, row[key]", "if a one equals b, x two equals five, row key"),
        ("print(arr[3]), items[2].value, sys.argv[1]", "print(arr three), items two dot value, sys.argv one"),
        ("Read obj[0].name here.", "Read obj zero dot name here."),  # it was "zero.name", one word
        ("my_list[2], myList[2], m[1][0]", "my list two, myList two, m one zero"),
        # A reference stays unread: after a word, a name, in brackets, or an editor's letter.
        (
            "Node.js[3] and MP3[4] are (born in York[3]) fast.",
            "Node dot js and MP three are (born in York) fast.",
        ),
        ("Its capital[a] is Rome,[b] the student[s] said", "Its capital is Rome, the student said"),
    ],
}


@pytest.mark.parametrize(
    ("raw", "spoken"),
    [
        pytest.param(raw, spoken, id=f"{family}: {raw[:30]}")
        for family, rows in CASES.items()
        for raw, spoken in rows
    ],
)
def test_normalize(raw, spoken):
    assert nz.normalize(raw) == spoken


@pytest.mark.parametrize(
    ("raw", "spoken"),
    [
        ("12/05/2026", "the twelfth of May, twenty twenty-six"),
        ("on 05/12/2026", "on the fifth of December, twenty twenty-six"),
        (
            "3/4/25, 5-12-2026",
            "the third of April, twenty twenty-five, the fifth of December, twenty twenty-six",
        ),
        ("Tue 3/4", "Tuesday the third of April"),
        # One of the numbers cannot be a month: the same in every locale.
        ("12/25/2024, Mon 12/25", "December twenty-fifth, twenty twenty-four, Monday December twenty-fifth"),
    ],
)
def test_dates_in_the_locales_order(monkeypatch, raw, spoken):
    """Where a locale writes the day first (en_GB, de_DE, C), so are the dates read."""
    monkeypatch.setattr(number_reading, "month_first_dates", lambda: False)
    assert nz.normalize(raw) == spoken


@pytest.mark.parametrize(
    ("env", "month_first"),
    [
        ({"LANG": "en_US.UTF-8"}, True),
        ({"LANG": "en_GB.UTF-8"}, False),
        ({"LC_TIME": "en_PH.UTF-8", "LANG": "en_GB.UTF-8"}, True),  # dates are LC_TIME's
        ({"LC_ALL": "de_DE.UTF-8", "LC_TIME": "en_US.UTF-8"}, False),  # LC_ALL above all
        ({"LC_ALL": "es_US", "LANG": "C"}, True),
        ({"LANG": "C.UTF-8"}, False),
        ({}, False),
    ],
)
def test_month_first_dates_follows_the_locale(monkeypatch, env, month_first):
    for name in ("LC_ALL", "LC_TIME", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert MONTH_FIRST_DATES() is month_first


@pytest.mark.parametrize(
    ("raw", "spoken", "skipped"),
    [
        ("Привет мир, hello", "hello", ["Привет мир"]),
        ("say 中文 now", "say now", ["中文"]),
        ("and العربية.", "and.", ["العربية"]),
        ("x" * 60, "", ["xxxxxxxxxxxxxxxxxxxx… (60-character word)"]),
        ("Ελληνικά words", "words", ["Ελληνικά"]),
        # Emoji are dropped silently, with the marks that style them (nothing unread to report).
        ("I \u2764\ufe0f reading \U0001f4da daily", "I love reading daily", []),
        ("Press 1\ufe0f\u20e3 now", "Press one now", []),
    ],
)
def test_unreadable_text_is_skipped_and_reported(raw, spoken, skipped):
    report: list[str] = []
    assert nz.normalize(raw, report) == spoken
    assert report == skipped


def test_binary_junk_gives_only_readable_words():
    rng = random.Random(7)
    junk = bytes(rng.randrange(256) for _ in range(20_000)).decode("utf-8", errors="replace")
    out = nz.normalize(junk + " The end.", [])
    assert out.endswith("The end.")
    assert out.isascii()
    assert all(len(w) <= nz.MAX_WORD_CHARS for w in out.split())


@pytest.mark.parametrize("raw", ["", "   ", "\n\n\t", "\x00\x01\x02", "\U0001f600", "***", "<b></b>"])
def test_nothing_readable_normalises_to_nothing(raw):
    assert not any(c.isalnum() for c in nz.normalize(raw))


def test_no_digits_survive():
    text = "1 22 333 4444 55555 1.2.3.4.5.6 12:61 99:99 $ 3 % 0x1F 1e10 ½"
    assert not any(c.isdigit() for c in nz.normalize(text))
