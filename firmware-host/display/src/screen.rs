//! The status screen: where things go for a given screen size, and drawing it on any
//! [`DrawTarget`].

use embedded_graphics::{
    mono_font::{MonoFont, MonoTextStyle, ascii},
    prelude::*,
    primitives::Rectangle,
    text::{Baseline, Text},
};

use crate::{qr::QrPlan, status::Status, status::Uptime, theme::Theme};

/// Heading drawn on screens tall enough for it.
const HEADING: &str = "XO Kiosk";

/// Text shortened to fit ends with this.
const ELLIPSIS: &str = "..";

/// Pairs of (figures font, address font), largest first; the first pair that fits is used.
const FONTS: [(&MonoFont<'static>, &MonoFont<'static>); 7] = [
    (&ascii::FONT_10X20, &ascii::FONT_9X15),
    (&ascii::FONT_9X18, &ascii::FONT_8X13),
    (&ascii::FONT_8X13, &ascii::FONT_7X13),
    (&ascii::FONT_7X13, &ascii::FONT_6X10),
    (&ascii::FONT_6X10, &ascii::FONT_5X8),
    (&ascii::FONT_5X8, &ascii::FONT_4X6),
    (&ascii::FONT_4X6, &ascii::FONT_4X6),
];

/// A figures line needs at least this many characters, e.g. `Players 12`.
const MIN_FIGURE_CHARS: u32 = 10;

/// Where the QR code and the text go on a screen of a given size.
///
/// Landscape screens put the QR code on the left, at most half the width, and the text on the
/// right; portrait screens put the QR code on top. On screens of 64 pixels or less there is no
/// margin: the QR code's quiet zone is margin enough.
#[derive(Debug, Clone)]
pub struct Layout {
    qr: Option<(QrPlan, Point)>,
    text: Rectangle,
    figures_font: &'static MonoFont<'static>,
    address_font: &'static MonoFont<'static>,
    line_gap: u32,
    heading: bool,
}

impl Layout {
    /// The layout of `address`'s status screen on `area`.
    pub fn new(area: Rectangle, address: &str) -> Layout {
        let Size {
            width: w,
            height: h,
        } = area.size;
        let short = w.min(h);
        let margin = if short <= 64 { 0 } else { short / 30 };
        let gap = if short <= 64 { 2 } else { margin };
        let inner_w = w.saturating_sub(2 * margin);
        let inner_h = h.saturating_sub(2 * margin);
        let inner = area.top_left + Point::new_equal(px(margin));
        let landscape = w >= h;
        let max_side = if landscape {
            inner_h.min(inner_w / 2)
        } else {
            inner_w.min(inner_h / 2)
        };

        let (qr, text) = match QrPlan::fit(address, max_side) {
            Some(plan) => {
                let side = plan.side();
                if landscape {
                    let at = inner + Point::new(0, px((inner_h - side) / 2));
                    let text_x = side + gap;
                    let text = Rectangle::new(
                        inner + Point::new(px(text_x), 0),
                        Size::new(inner_w.saturating_sub(text_x), inner_h),
                    );
                    (Some((plan, at)), text)
                } else {
                    let at = inner + Point::new(px((inner_w - side) / 2), 0);
                    let text_y = side + gap;
                    let text = Rectangle::new(
                        inner + Point::new(0, px(text_y)),
                        Size::new(inner_w, inner_h.saturating_sub(text_y)),
                    );
                    (Some((plan, at)), text)
                }
            }
            // No QR code can hold the address here: the text gets the whole screen.
            None => (None, Rectangle::new(inner, Size::new(inner_w, inner_h))),
        };

        let (figures_font, address_font, line_gap, heading) = choose_fonts(text.size);
        Layout {
            qr,
            text,
            figures_font,
            address_font,
            line_gap,
            heading,
        }
    }

    /// The QR code's plan, if one fits.
    pub fn qr(&self) -> Option<&QrPlan> {
        self.qr.as_ref().map(|(plan, _)| plan)
    }

    /// The lit square holding the QR code and its quiet zone, if one fits.
    pub fn qr_area(&self) -> Option<Rectangle> {
        self.qr
            .as_ref()
            .map(|(plan, at)| Rectangle::new(*at, Size::new_equal(plan.side())))
    }

    /// The area for the address and the figures.
    pub fn text_area(&self) -> Rectangle {
        self.text
    }

    /// Characters of the address font per line.
    pub fn address_chars_per_line(&self) -> usize {
        chars_per_line(self.address_font, self.text.size.width)
    }
}

/// The figures font, address font, extra pixels between figure lines, and whether a heading fits.
fn choose_fonts(
    area: Size,
) -> (
    &'static MonoFont<'static>,
    &'static MonoFont<'static>,
    u32,
    bool,
) {
    let block = |fig: &MonoFont<'_>, addr: &MonoFont<'_>, gap: u32| {
        let addr_h = addr.character_size.height;
        2 * addr_h + addr_h / 2 + 4 * (fig.character_size.height + gap)
    };
    for (fig, addr) in FONTS {
        if char_width(fig) * MIN_FIGURE_CHARS > area.width {
            continue;
        }
        let spaced = fig.character_size.height / 5;
        for gap in [spaced, 0] {
            let needed = block(fig, addr, gap);
            if needed <= area.height {
                let heading_h = fig.character_size.height + fig.character_size.height / 2;
                return (fig, addr, gap, needed + heading_h <= area.height);
            }
        }
    }
    let (fig, addr) = FONTS[FONTS.len() - 1];
    (fig, addr, 0, false)
}

/// Draws the status screen on the whole of `target`, background included.
///
/// ```
/// use embedded_graphics::{mock_display::MockDisplay, pixelcolor::BinaryColor, prelude::*};
/// use status_display::{Layout, Status, Theme, draw_status};
///
/// let status = Status { address: "http://xo.local/".into(), players_online: 3, ..Status::default() };
/// let mut display = MockDisplay::<BinaryColor>::new(); // 64x64
/// display.set_allow_overdraw(true);
/// draw_status(&mut display, &status, &Theme::MONO).unwrap();
///
/// // The QR code's quiet zone is lit.
/// let qr = Layout::new(display.bounding_box(), &status.address).qr_area().unwrap();
/// assert_eq!(display.get_pixel(qr.top_left), Some(BinaryColor::On));
/// ```
pub fn draw_status<D>(
    target: &mut D,
    status: &Status,
    theme: &Theme<D::Color>,
) -> Result<(), D::Error>
where
    D: DrawTarget,
{
    let area = target.bounding_box();
    target.fill_solid(&area, theme.background)?;
    let layout = Layout::new(area, &status.address);
    if let Some((plan, at)) = &layout.qr {
        plan.draw(target, *at, theme.qr_light, theme.qr_dark)?;
    }

    let text = layout.text;
    if text.size.width == 0 || text.size.height == 0 {
        return Ok(());
    }
    let fig = layout.figures_font;
    let addr = layout.address_font;
    let fig_h = fig.character_size.height;
    let addr_h = addr.character_size.height;
    let heading_h = if layout.heading { fig_h + fig_h / 2 } else { 0 };
    let block_h = heading_h + 2 * addr_h + addr_h / 2 + 4 * (fig_h + layout.line_gap);
    let mut y = text.top_left.y + px(text.size.height.saturating_sub(block_h) / 2);
    let x = text.top_left.x;
    let width = text.size.width;

    if layout.heading {
        draw_line(target, HEADING, Point::new(x, y), fig, theme.accent)?;
        y += px(heading_h);
    }

    let address_lines = split_address(&status.address, chars_per_line(addr, width));
    for line in &address_lines {
        draw_line(target, line, Point::new(x, y), addr, theme.text)?;
        y += px(addr_h);
    }
    // Keep the figures in place whether the address took one line or two.
    y += px(addr_h) * px(2 - u32::try_from(address_lines.len()).unwrap_or(2).min(2))
        + px(addr_h / 2);

    // Label sets, longest first; all lines use the longest set in which every line fits, so the
    // labels read alike, and a line whose figure is too wide falls back to shorter ones alone.
    let figures: [([&str; 3], String); 4] = [
        (
            ["Players online", "Players", "On"],
            status.players_online.to_string(),
        ),
        (
            ["Rooms waiting", "Waiting", "Wait"],
            status.rooms_waiting.to_string(),
        ),
        (
            ["Rooms playing", "Playing", "Play"],
            status.rooms_playing.to_string(),
        ),
        // The card's trouble first (no owner can be added while writes fail), then the
        // owner code, else the uptime.
        match (status.storage, &status.owner_code) {
            (Some(warning), _) => (
                ["Card degraded", "Degraded", "Card"],
                warning.word().to_owned(),
            ),
            (None, Some(code)) if code.len() == 8 => (
                ["Owner code", "Owner", "Own"],
                format!("{} {}", &code[..4], &code[4..]),
            ),
            (None, _) => (
                ["Uptime", "Uptime", "Up"],
                Uptime(status.uptime_s).to_string(),
            ),
        },
    ];
    let chars = chars_per_line(fig, width);
    let fits =
        |label: &str, value: &str| label.chars().count() + 1 + value.chars().count() <= chars;
    let set = (0..3)
        .find(|&i| figures.iter().all(|(labels, value)| fits(labels[i], value)))
        .unwrap_or(0);
    for (labels, value) in &figures {
        let value = shorten(value, chars);
        let value_len = value.chars().count();
        let label = labels[set..].iter().find(|l| fits(l, &value));
        if let Some(label) = label {
            draw_line(target, label, Point::new(x, y), fig, theme.label)?;
        }
        let value_x =
            x + px(width) - px(char_width(fig)) * px(u32::try_from(value_len).unwrap_or(0));
        draw_line(target, &value, Point::new(value_x, y), fig, theme.text)?;
        y += px(fig_h + layout.line_gap);
    }
    Ok(())
}

fn draw_line<D>(
    target: &mut D,
    s: &str,
    at: Point,
    font: &MonoFont<'_>,
    color: D::Color,
) -> Result<(), D::Error>
where
    D: DrawTarget,
{
    Text::with_baseline(s, at, MonoTextStyle::new(font, color), Baseline::Top).draw(target)?;
    Ok(())
}

fn char_width(font: &MonoFont<'_>) -> u32 {
    font.character_size.width + font.character_spacing
}

fn chars_per_line(font: &MonoFont<'_>, width: u32) -> usize {
    usize::try_from(width / char_width(font)).unwrap_or(0)
}

/// `s` if it has at most `max` characters, else its start and [`ELLIPSIS`] in `max` characters.
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    if max < ELLIPSIS.len() {
        return s.chars().take(max).collect();
    }
    let mut out: String = s.chars().take(max - ELLIPSIS.len()).collect();
    out.push_str(ELLIPSIS);
    out
}

/// The address on at most two lines of `n` characters: whole if it fits one; else split after the
/// scheme's `://` if the rest fits the second line, else after the last `/ . : ? & = -` that leaves
/// a second line that fits; else cut at `n` and the second line shortened.
pub(crate) fn split_address(address: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = address.chars().collect();
    let len = chars.len();
    if n == 0 {
        return Vec::new();
    }
    if len <= n {
        return vec![address.to_owned()];
    }
    let line = |a: usize, b: usize| chars[a..b].iter().collect::<String>();
    if let Some(scheme_end) = address
        .find("://")
        .map(|i| address[..i + 3].chars().count())
    {
        if scheme_end <= n && len - scheme_end <= n {
            return vec![line(0, scheme_end), line(scheme_end, len)];
        }
    }
    let split = (1..=n)
        .rev()
        .find(|&k| len - k <= n && "/.:?&=-".contains(chars[k - 1]));
    match split {
        Some(k) => vec![line(0, k), line(k, len)],
        None => vec![line(0, n), shorten(&line(n, len), n)],
    }
}

/// Screen coordinates are far below `i32::MAX`.
fn px(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_that_fits_stays_on_one_line() {
        assert_eq!(split_address("http://xo.local", 17), ["http://xo.local"]);
    }

    #[test]
    fn address_breaks_after_the_scheme_when_the_rest_fits() {
        assert_eq!(
            split_address("http://xo.local:8080", 17),
            ["http://", "xo.local:8080"]
        );
    }

    #[test]
    fn address_breaks_at_punctuation_when_the_host_is_long() {
        assert_eq!(
            split_address("http://my-kiosk.local:8080", 17),
            ["http://my-kiosk.", "local:8080"]
        );
    }

    #[test]
    fn address_too_long_for_two_lines_is_shortened_with_an_ellipsis() {
        let lines = split_address("http://a-very-long-host-name-for-the-kiosk.local:8080", 17);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], "http://a-very-lon");
        assert_eq!(lines[1], "g-host-name-for..");
    }

    #[test]
    fn shorten_keeps_short_text_and_marks_cut_text() {
        assert_eq!(shorten("12", 5), "12");
        assert_eq!(shorten("123456", 5), "123..");
        assert_eq!(shorten("123456", 1), "1");
    }
}
