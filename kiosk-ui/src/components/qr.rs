//! The QR code of the address phones should open (U7), drawn as SVG by the `qrcode` crate:
//! dark modules on a light background with a quiet zone, so phone cameras read it in either
//! theme.

use protocol::http::WifiSecurity;
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

/// Escapes `\ ; , : "` in a field of a `WIFI:` code, as the format asks.
fn wifi_escape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    for c in field.chars() {
        if matches!(c, '\\' | ';' | ',' | ':' | '"') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The text of a Wi-Fi QR code (`WIFI:S:<ssid>;T:WPA;P:<password>;;`), which phone cameras
/// offer to join. An open network is `T:nopass` with no password.
pub fn wifi_qr_text(ssid: &str, security: WifiSecurity, password: Option<&str>) -> String {
    match (security, password) {
        (WifiSecurity::Nopass, _) | (_, None) => {
            format!("WIFI:S:{};T:nopass;;", wifi_escape(ssid))
        }
        (WifiSecurity::Wpa, Some(p)) => {
            format!("WIFI:S:{};T:WPA;P:{};;", wifi_escape(ssid), wifi_escape(p))
        }
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct QrProps {
    pub text: AttrValue,
    pub label: AttrValue,
    #[prop_or_else(|| AttrValue::from("qr"))]
    pub id: AttrValue,
}

#[component]
pub fn Qr(props: &QrProps) -> Html {
    let svg = use_memo(props.text.clone(), |text| qr_svg(text));
    match svg.as_ref() {
        // The markup comes from the qrcode renderer, never from user input.
        Some(svg) => html! {
            <div class="qr" id={props.id.clone()} role="img" aria-label={props.label.clone()}>
                { Html::from_html_unchecked(AttrValue::from(svg.clone())) }
            </div>
        },
        None => html! {},
    }
}

#[cfg(test)]
mod tests {
    use super::{WifiSecurity, qr_svg, wifi_qr_text};

    #[test]
    fn wifi_codes_follow_the_wifi_format_with_escapes() {
        assert_eq!(
            wifi_qr_text("Cafe", WifiSecurity::Wpa, Some("secret")),
            "WIFI:S:Cafe;T:WPA;P:secret;;"
        );
        assert_eq!(
            wifi_qr_text("a;b", WifiSecurity::Wpa, Some("p:w\\")),
            "WIFI:S:a\\;b;T:WPA;P:p\\:w\\\\;;"
        );
        assert_eq!(
            wifi_qr_text("Open", WifiSecurity::Nopass, None),
            "WIFI:S:Open;T:nopass;;"
        );
    }

    #[test]
    fn an_address_renders_as_an_svg_qr_code() {
        let svg = qr_svg("http://xo.local:8080").expect("fits");
        assert!(svg.contains("<svg"));
        assert!(svg.contains("#000000"));
    }
}
