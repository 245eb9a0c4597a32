//! The create-room box (M1.1–M1.2, M2.1, M3.1). The kiosk shows it with the opponent fixed
//! ("Play a friend", "Play the bot").

use engine::{Game, Mark};
use protocol::ClientMsg;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::create_form::{CreateForm, FormAction, FormError, JoinKind, Opponent, TIMES};
use crate::i18n::T;

use super::context::use_ctx;

#[derive(Debug, Properties, PartialEq)]
pub struct CreateRoomProps {
    /// A prefix for element ids, so two boxes can share a page.
    pub prefix: AttrValue,
    /// Fixes the opponent and hides its choice (the kiosk's two buttons).
    #[prop_or_default]
    pub fixed: Option<Opponent>,
    /// The submit button's text.
    #[prop_or_default]
    pub submit: Option<AttrValue>,
    /// The kiosk's form: one row per setting, short labels, and local players start with
    /// distinct names (the kiosk may have no keyboard; they stay editable).
    #[prop_or_default]
    pub compact: bool,
}

/// A labelled group of radio buttons.
pub fn choice<V: Copy + PartialEq + 'static>(
    prefix: &str,
    name: &str,
    legend: &str,
    options: Vec<(V, String)>,
    current: V,
    on: Callback<V>,
) -> Html {
    html! {
        <fieldset class="choice" id={format!("{prefix}-{name}")}>
            <legend>{ legend.to_owned() }</legend>
            <div class="segmented">
                { for options.into_iter().enumerate().map(|(i, (value, label))| {
                    let id = format!("{prefix}-{name}-{i}");
                    let on = on.clone();
                    let onchange = Callback::from(move |_: Event| on.emit(value));
                    html! {
                        <label for={id.clone()} class={classes!("option", (value == current).then_some("checked"))}>
                            <input type="radio" id={id} name={format!("{prefix}-{name}")}
                                checked={value == current} {onchange} />
                            <span>{ label }</span>
                        </label>
                    }
                }) }
            </div>
        </fieldset>
    }
}

/// A callback applying `f(value)` to the form.
fn act<V: 'static>(form: &UseStateHandle<CreateForm>, f: fn(V) -> FormAction) -> Callback<V> {
    let form = form.clone();
    Callback::from(move |v| form.set(form.apply(f(v))))
}

#[component]
pub fn CreateRoomBox(props: &CreateRoomProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let signed_in = ctx.state.signed_in() && !ctx.state.route.is_kiosk();
    let fixed = props.fixed;
    let compact = props.compact;
    let form = use_state(|| {
        let mut f = CreateForm::new(signed_in);
        if let Some(o) = fixed {
            f = f.apply(FormAction::Opponent(o));
        }
        if compact {
            f = f
                .apply(FormAction::Name(0, ctx.t(T::DefaultName1).to_owned()))
                .apply(FormAction::Name(1, ctx.t(T::DefaultName2).to_owned()));
        }
        f
    });
    let tried = use_state(|| false);
    // The account is known only after the page has loaded: an untouched box of a guest who
    // turns out to be signed in starts over with a signed-in player's defaults.
    {
        let form = form.clone();
        use_effect_with(signed_in, move |signed_in| {
            if *signed_in && fixed.is_none() && *form == CreateForm::new(false) {
                form.set(CreateForm::new(true));
            }
        });
    }
    let view = form.for_user(signed_in);
    let prefix = props.prefix.to_string();

    let errors = view.errors();
    // The clash is shown as soon as both names are typed; the rest after a first try.
    let visible: Vec<FormError> = errors
        .iter()
        .copied()
        .filter(|e| *tried || *e == FormError::NameClash)
        .collect();
    let error_text = |e: FormError| match e {
        FormError::NameMissing(i) => lang.f(e.text(), &[&(i + 1).to_string()]),
        _ => ctx.t(e.text()).to_owned(),
    };

    let onsubmit = {
        let ctx = ctx.clone();
        let form = form.clone();
        let tried = tried.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            tried.set(true);
            if let Ok(room) = form.to_request(signed_in) {
                ctx.send.emit(ClientMsg::CreateRoom { id: None, room });
            }
        })
    };

    let games = choice(
        &prefix,
        "game",
        ctx.t(T::FieldGame),
        Game::ALL
            .iter()
            .map(|&g| (g, lang.game(g).to_owned()))
            .collect(),
        view.game,
        act(&form, FormAction::Game),
    );
    let opponents = if fixed.is_none() {
        choice(
            &prefix,
            "opponent",
            ctx.t(T::FieldOpponent),
            Opponent::offered(signed_in)
                .iter()
                .map(|&o| (o, ctx.t(o.label()).to_owned()))
                .collect(),
            view.opponent,
            act(&form, FormAction::Opponent),
        )
    } else {
        html! {}
    };
    let difficulty = if view.shows_difficulty() {
        let oninput = {
            let form = form.clone();
            Callback::from(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Ok(d) = input.value().parse::<u8>() {
                    form.set(form.apply(FormAction::Difficulty(d)));
                }
            })
        };
        let pct = lang.f(T::Percent, &[&lang.num(view.difficulty)]);
        let id = format!("{prefix}-difficulty");
        html! {
            <>
                <div class="field slider">
                    <label for={id.clone()}>{ ctx.t(T::FieldDifficulty) }</label>
                    <input type="range" id={id} min="0" max="100" step="1"
                        value={view.difficulty.to_string()} aria-valuetext={pct.clone()} {oninput} />
                    <output for={format!("{prefix}-difficulty")}>{ pct }</output>
                </div>
                { choice(&prefix, "side", ctx.t(T::FieldSide),
                    vec![(Mark::X, ctx.t(if compact { T::SideXShort } else { T::SideXFirst }).to_owned()),
                         (Mark::O, ctx.t(if compact { T::SideOShort } else { T::SideOSecond }).to_owned())],
                    view.side, act(&form, FormAction::Side)) }
            </>
        }
    } else {
        html! {}
    };
    let names = if view.shows_names() {
        let name_input = |i: usize, label: T| {
            let form = form.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                form.set(form.apply(FormAction::Name(i, input.value())));
            });
            let id = format!("{prefix}-name{}", i + 1);
            let invalid = visible.iter().any(|e| {
                matches!(e, FormError::NameMissing(j) | FormError::NameTooLong(j) if *j == i)
                    || *e == FormError::NameClash
            });
            html! {
                <div class="field">
                    <label for={id.clone()}>{ ctx.t(label) }</label>
                    <input type="text" id={id} maxlength="40" autocomplete="off"
                        value={view.names[i].clone()} aria-invalid={invalid.to_string()}
                        aria-describedby={format!("{prefix}-errors")} {oninput} />
                </div>
            }
        };
        let (first, second) = if compact {
            (T::FieldName1Short, T::FieldName2Short)
        } else {
            (T::FieldName1, T::FieldName2)
        };
        html! {
            <>
                { name_input(0, first) }
                { name_input(1, second) }
                if !compact {
                    <p class="note">{ ctx.t(T::NamesRandom) }</p>
                }
            </>
        }
    } else {
        html! {}
    };
    let time = if view.shows_time() {
        choice(
            &prefix,
            "time",
            ctx.t(if compact {
                T::FieldTimeShort
            } else {
                T::FieldTime
            }),
            TIMES
                .iter()
                .map(|&t| (t, lang.f(T::Seconds, &[&lang.num(t)])))
                .collect(),
            view.time_s,
            act(&form, FormAction::Time),
        )
    } else {
        html! {}
    };
    let joining = if view.shows_joining() {
        let passcode = if view.joining == JoinKind::Passcode {
            let form = form.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                form.set(form.apply(FormAction::Passcode(input.value())));
            });
            let id = format!("{prefix}-passcode");
            html! {
                <div class="field">
                    <label for={id.clone()}>{ ctx.t(T::FieldPasscode) }</label>
                    <input type="text" id={id} inputmode="numeric" maxlength="4" autocomplete="off"
                        pattern="[0-9]{4}" value={view.passcode.clone()}
                        aria-describedby={format!("{prefix}-errors")} {oninput} />
                </div>
            }
        } else {
            html! {}
        };
        html! {
            <>
                { choice(&prefix, "joining", ctx.t(T::FieldJoining),
                    JoinKind::ALL.iter().map(|&j| (j, ctx.t(j.label()).to_owned())).collect(),
                    view.joining, act(&form, FormAction::Joining)) }
                { passcode }
            </>
        }
    } else {
        html! {}
    };
    let submit = props
        .submit
        .clone()
        .unwrap_or_else(|| ctx.t(T::CreateRoomButton).into());

    html! {
        <form class={classes!("create", compact.then_some("compact"))} id={format!("{prefix}-form")} {onsubmit} novalidate=true>
            { games }
            { opponents }
            { difficulty }
            { names }
            { time }
            { joining }
            <div id={format!("{prefix}-errors")} class="errors" role="alert">
                { for visible.iter().map(|e| html! { <p class="error">{ error_text(*e) }</p> }) }
            </div>
            if fixed.is_none() && !signed_in && !ctx.state.route.is_kiosk() {
                <p class="note">{ ctx.t(T::GuestCreateNote) }</p>
            }
            <button type="submit" class="primary big" id={format!("{prefix}-submit")}>{ submit }</button>
        </form>
    }
}
