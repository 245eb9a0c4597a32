//! A player's profile (E5): username, both ratings, points, win/draw/loss per game and recent
//! games with their replay.

use engine::Game;
use protocol::records::{FinishedGame, PlayerRef};
use yew::prelude::*;

use crate::api::{self, ApiError, LadderView, Profile};
use crate::i18n::{Lang, T};
use crate::room_model::{change_class, player_name, signed};
use crate::route::Route;

use super::context::use_ctx;
use super::link::Link;
use super::navbar::Navbar;
use super::owner_account::DeleteAccountBox;

#[derive(Debug, Properties, PartialEq)]
pub struct ProfileProps {
    pub name: String,
}

/// The reader's outcome in a finished game, as seen by player `user`.
fn outcome(game: &FinishedGame, user: u64) -> T {
    let mine = |p: &PlayerRef| matches!(p, PlayerRef::User { id, .. } if *id == user);
    let me = if mine(&game.x) {
        engine::Mark::X
    } else {
        engine::Mark::O
    };
    match game.end.winner() {
        None => T::OutcomeDraw,
        Some(w) if w == me => T::OutcomeWin,
        Some(_) => T::OutcomeLoss,
    }
}

fn ladder(lang: Lang, game: Game, l: &LadderView) -> Html {
    html! {
        <section class="panel ladder" data-game={game.as_str()}>
            <h2>{ lang.game(game) }</h2>
            <p class="big-rating">{ lang.f(T::RatingValue, &[&lang.num(l.rating)]) }</p>
            <dl class="stats">
                <dt>{ lang.t(T::Wins) }</dt><dd>{ lang.num(l.wins) }</dd>
                <dt>{ lang.t(T::Draws) }</dt><dd>{ lang.num(l.draws) }</dd>
                <dt>{ lang.t(T::Losses) }</dt><dd>{ lang.num(l.losses) }</dd>
                <dt>{ lang.t(T::GamesPlayed) }</dt><dd>{ lang.num(l.games) }</dd>
                <dt>{ lang.t(T::Points) }</dt><dd>{ lang.num(l.points) }</dd>
            </dl>
        </section>
    }
}

#[component]
pub fn ProfilePage(props: &ProfileProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let data = use_state(|| None::<Result<Profile, ApiError>>);
    {
        let data = data.clone();
        use_effect_with(props.name.clone(), move |name| {
            data.set(None);
            let name = name.clone();
            wasm_bindgen_futures::spawn_local(async move {
                data.set(Some(api::profile(&name).await));
            });
        });
    }
    let body = match &*data {
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(Err(e)) if e.status == 404 => html! { <p role="alert">{ ctx.t(T::UnknownUser) }</p> },
        Some(Err(_)) => html! { <p role="alert">{ ctx.t(T::ErrNetwork) }</p> },
        Some(Ok(p)) => html! {
            <>
                <h2 id="profile-name">{ p.username.clone() }</h2>
                <p class="points">{ format!("{}: {}", ctx.t(T::Points), lang.num(p.points)) }</p>
                <div class="ladders">
                    { ladder(lang, Game::Xo, &p.ladders.xo) }
                    { ladder(lang, Game::Infinite, &p.ladders.infinite) }
                </div>
                <section class="panel recent">
                    <h2>{ ctx.t(T::RecentGames) }</h2>
                    if p.recent_games.is_empty() {
                        <p class="note">{ ctx.t(T::NoGames) }</p>
                    } else {
                        <ul class="games">
                            { for p.recent_games.iter().map(|g| {
                                let x = player_name(&g.game.x, lang);
                                let o = player_name(&g.game.o, lang);
                                let change = g.rating_updates.iter().find(|u| u.user == p.id).map(|u| u.change);
                                html! {
                                    <li>
                                        <Link to={Route::Replay(g.game.id.clone())}>
                                            <span>{ lang.game(g.game.game) }</span>{ " · " }
                                            <bdi>{ lang.f(T::Versus, &[&lang.f(T::NamedMark, &[&x, "X"]), &lang.f(T::NamedMark, &[&o, "O"])]) }</bdi>{ " · " }
                                            <span>{ ctx.t(outcome(&g.game, p.id)) }</span>
                                            if let Some(c) = change {
                                                { " " }<span class={classes!("change", change_class(c))}>{ lang.num(signed(c)) }</span>
                                            }
                                        </Link>
                                    </li>
                                }
                            }) }
                        </ul>
                    }
                </section>
            </>
        },
    };
    let is_me =
        matches!(&ctx.state.account, Some(Some(a)) if a.username.eq_ignore_ascii_case(&props.name));
    html! {
        <>
            <Navbar title={AttrValue::from(props.name.clone())} />
            <main id="main" class="page profile">
                { body }
                if is_me {
                    <p><Link to={Route::SignIn} class="text-link">{ ctx.t(T::NavSignOut) }</Link></p>
                    <p><Link to={Route::Owner} class="text-link">{ ctx.t(T::OwnerTitle) }</Link></p>
                    <DeleteAccountBox />
                }
            </main>
        </>
    }
}
