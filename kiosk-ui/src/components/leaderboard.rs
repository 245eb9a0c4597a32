//! The leaderboard of one game's ladder (E5), with a switch between the two games; also an
//! archived season's ladder as that season ended (SPEC O2), and the puzzle streak
//! leaderboard of a game (PZ5).

use engine::Game;
use yew::prelude::*;

use crate::api::{self, ApiError, Leaderboard};
use crate::i18n::{Lang, T};
use crate::route::Route;

use super::context::use_ctx;
use super::link::Link;
use super::navbar::Navbar;

#[derive(Debug, Properties, PartialEq)]
pub struct LeaderboardProps {
    pub game: Game,
    /// An archived season; `None` for the season being played.
    #[prop_or_default]
    pub season: Option<u64>,
}

#[component]
pub fn LeaderboardPage(props: &LeaderboardProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let data = use_state(|| None::<Result<Leaderboard, ApiError>>);
    {
        let data = data.clone();
        use_effect_with((props.game, props.season), move |&(game, season)| {
            data.set(None);
            wasm_bindgen_futures::spawn_local(async move {
                data.set(Some(api::leaderboard(game, season).await));
            });
        });
    }
    let tabs = tabs(lang, props.game, |g| match props.season {
        None => Route::Leaderboard(g),
        Some(season) => Route::ArchivedLeaderboard { game: g, season },
    });
    let body = match &*data {
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(Err(_)) => html! { <p role="alert">{ ctx.t(T::ErrNetwork) }</p> },
        Some(Ok(board)) if board.players.is_empty() => {
            html! { <p class="note">{ ctx.t(T::NoPlayers) }</p> }
        }
        Some(Ok(board)) => html! {
            <table class="leaderboard" id="leaderboard">
                <thead><tr>
                    <th scope="col">{ ctx.t(T::RankCol) }</th>
                    <th scope="col">{ ctx.t(T::PlayerCol) }</th>
                    <th scope="col">{ ctx.t(T::RatingCol) }</th>
                    <th scope="col" class="wide-only">{ ctx.t(T::Wins) }</th>
                    <th scope="col" class="wide-only">{ ctx.t(T::Draws) }</th>
                    <th scope="col" class="wide-only">{ ctx.t(T::Losses) }</th>
                    <th scope="col">{ ctx.t(T::Points) }</th>
                </tr></thead>
                <tbody>
                    { for board.players.iter().map(|p| html! {
                        <tr>
                            <td>{ p.rank }</td>
                            <td><Link to={Route::Profile(p.username.clone())}>{ p.username.clone() }</Link></td>
                            <td>{ p.rating }</td>
                            <td class="wide-only">{ p.wins }</td>
                            <td class="wide-only">{ p.draws }</td>
                            <td class="wide-only">{ p.losses }</td>
                            <td>{ p.points }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        },
    };
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::LeaderboardTitle))} />
            <main id="main" class="page">
                if let Some(season) = props.season {
                    <p class="season-title">
                        <strong id="season-title">{ lang.f(T::SeasonArchivedTitle, &[&lang.num(season)]) }</strong>
                        { " " }
                        <Link to={Route::Leaderboard(props.game)} class="text-link">{ ctx.t(T::SeasonBackToCurrent) }</Link>
                    </p>
                }
                <nav class="tabs" aria-label={ctx.t(T::FieldGame)}>{ tabs }</nav>
                { body }
            </main>
        </>
    }
}

/// A switch between the two games' boards.
fn tabs(lang: Lang, current: Game, to: impl Fn(Game) -> Route) -> Html {
    Game::ALL
        .iter()
        .map(|&g| {
            html! {
                <Link to={to(g)} class={classes!("tab", (g == current).then_some("current"))}>
                    { lang.game(g) }
                </Link>
            }
        })
        .collect()
}

#[derive(Debug, Properties, PartialEq)]
pub struct StreakBoardProps {
    pub game: Game,
}

/// The best puzzle streaks of a game (PZ5): rank, player, best streak, puzzle rating.
#[component]
pub fn StreakBoardPage(props: &StreakBoardProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let data = use_state(|| None::<Result<protocol::http::StreakBoard, ApiError>>);
    {
        let data = data.clone();
        use_effect_with(props.game, move |&game| {
            data.set(None);
            wasm_bindgen_futures::spawn_local(async move {
                data.set(Some(api::streaks(game).await));
            });
        });
    }
    let body = match &*data {
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(Err(_)) => html! { <p role="alert">{ ctx.t(T::ErrNetwork) }</p> },
        Some(Ok(board)) if board.players.is_empty() => {
            html! { <p class="note">{ ctx.t(T::NoStreaks) }</p> }
        }
        Some(Ok(board)) => html! {
            <table class="leaderboard" id="streaks">
                <thead><tr>
                    <th scope="col">{ ctx.t(T::RankCol) }</th>
                    <th scope="col">{ ctx.t(T::PlayerCol) }</th>
                    <th scope="col">{ ctx.t(T::BestStreak) }</th>
                    <th scope="col">{ ctx.t(T::RatingCol) }</th>
                </tr></thead>
                <tbody>
                    { for board.players.iter().map(|p| html! {
                        <tr>
                            <td>{ lang.num(p.rank) }</td>
                            <td><Link to={Route::Profile(p.username.clone())}><bdi>{ p.username.clone() }</bdi></Link></td>
                            <td>{ lang.num(p.best_streak) }</td>
                            <td>{ lang.num(p.rating) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        },
    };
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::StreakBoardTitle))} />
            <main id="main" class="page">
                <nav class="tabs" aria-label={ctx.t(T::FieldGame)}>{ tabs(lang, props.game, Route::Streaks) }</nav>
                { body }
            </main>
        </>
    }
}
