//! A finished game from the store, replayed with analysis (U10, U11).

use yew::prelude::*;

use crate::api::{self, ApiError, GameView};
use crate::i18n::T;
use crate::room_model::player_name;

use super::app::use_ctx;
use super::navbar::Navbar;
use super::replay::Replay;

#[derive(Debug, Properties, PartialEq)]
pub struct GameReplayProps {
    pub id: String,
}

#[component]
pub fn GameReplay(props: &GameReplayProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let data = use_state(|| None::<Result<GameView, ApiError>>);
    {
        let data = data.clone();
        use_effect_with(props.id.clone(), move |id| {
            data.set(None);
            let id = id.clone();
            wasm_bindgen_futures::spawn_local(async move {
                data.set(Some(api::finished_game(&id).await));
            });
        });
    }
    let (title, body) = match &*data {
        None => (
            ctx.t(T::Replay).to_owned(),
            html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        ),
        Some(Err(e)) if e.status == 404 => (
            ctx.t(T::Replay).to_owned(),
            html! { <p role="alert">{ ctx.t(T::GameNotFound) }</p> },
        ),
        Some(Err(_)) => (
            ctx.t(T::Replay).to_owned(),
            html! { <p role="alert">{ ctx.t(T::ErrNetwork) }</p> },
        ),
        Some(Ok(g)) => {
            let x = player_name(&g.game.x, lang);
            let o = player_name(&g.game.o, lang);
            (
                lang.game(g.game.game).to_owned(),
                html! {
                    <>
                        <p class="rail">{ lang.f(T::Versus, &[&format!("{x} (X)"), &format!("{o} (O)")]) }</p>
                        <Replay game={g.game.game} moves={g.game.moves.clone()} />
                    </>
                },
            )
        }
    };
    html! {
        <>
            <Navbar title={AttrValue::from(title)} />
            <main id="main" class="page replay-page">{ body }</main>
        </>
    }
}
