//! The QR code of the address phones should open (U7), drawn as SVG by the `qrcode` crate:
//! dark modules on a light background with a quiet zone, so phone cameras read it in either
//! theme.

use qrcode::QrCode;
use qrcode::render::svg;
use yew::prelude::*;

/// The SVG markup of a QR code for `text`, or `None` when it does not fit in a QR code.
pub fn qr_svg(text: &str) -> Option<String> {
    let code = QrCode::new(text.as_bytes()).ok()?;
    Some(
        code.render::<svg::Color<'_>>()
            .min_dimensions(180, 180)
            .dark_color(svg::Color("#000000"))
            .light_color(svg::Color("#ffffff"))
            .quiet_zone(true)
            .build(),
    )
}

#[derive(Debug, Properties, PartialEq)]
pub struct QrProps {
    pub text: AttrValue,
    pub label: AttrValue,
}

#[component]
pub fn Qr(props: &QrProps) -> Html {
    let svg = use_memo(props.text.clone(), |text| qr_svg(text));
    match svg.as_ref() {
        // The markup comes from the qrcode renderer, never from user input.
        Some(svg) => html! {
            <div class="qr" id="qr" role="img" aria-label={props.label.clone()}>
                { Html::from_html_unchecked(AttrValue::from(svg.clone())) }
            </div>
        },
        None => html! {},
    }
}

#[cfg(test)]
mod tests {
    use super::qr_svg;

    #[test]
    fn an_address_renders_as_an_svg_qr_code() {
        let svg = qr_svg("http://xo.local:8080").expect("fits");
        assert!(svg.contains("<svg"));
        assert!(svg.contains("#000000"));
    }
}
