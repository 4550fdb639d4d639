"""Geometry of the decision page's server-rendered SVG charts (the template draws them, app.css colours
them): no script, and the tables beside them carry every number."""

from .aggregation import RATING_VALUES, GroupSummary

WIDTH = 600
LABEL_WIDTH = 130
ROW_HEIGHT = 34
BAR_HEIGHT = 22
PLOT_WIDTH = WIDTH - LABEL_WIDTH - 20


def distribution_chart(groups: list[GroupSummary]) -> dict:
    """One stacked bar per group: the share of each rating among that group's ratings."""
    rows = []
    for index, group in enumerate(groups):
        total = group.rating_count
        x = LABEL_WIDTH
        segments = []
        for value in RATING_VALUES:
            count = group.distribution[value]
            width = PLOT_WIDTH * count / total if total else 0
            segments.append({"value": value, "count": count, "x": round(x, 2), "width": round(width, 2),
                             "share": count / total if total else 0})
            x += width
        rows.append({"label": group.label, "y": index * ROW_HEIGHT + 8, "segments": segments, "total": total})
    return {"width": WIDTH, "height": len(rows) * ROW_HEIGHT + 16, "rows": rows, "label_width": LABEL_WIDTH,
            "bar_height": BAR_HEIGHT, "legend": RATING_VALUES}


def usable_chart(groups: list[GroupSummary], threshold: float) -> dict:
    """Per group, the usable share (the campaign's post-stratified estimate) as a dot with the 95% interval the
    gate reads as a line, and the threshold."""
    def at(share: float) -> float:
        return round(LABEL_WIDTH + PLOT_WIDTH * share, 2)

    rows = []
    for index, group in enumerate(groups):
        y = index * ROW_HEIGHT + 8 + BAR_HEIGHT / 2
        row = {"label": group.label, "y": y, "text_y": y + 4, "rated": group.rated_items,
               "share": group.estimate}
        if group.estimate is not None:
            row.update(x=at(group.estimate), low=at(group.interval_low), high=at(group.interval_high))
        rows.append(row)
    height = len(rows) * ROW_HEIGHT + 40
    ticks = [{"x": at(share), "share": share} for share in (0, 0.2, 0.4, 0.6, 0.8, 1.0)]
    return {"width": WIDTH, "height": height, "rows": rows, "threshold_x": at(threshold), "threshold": threshold,
            "axis_y": height - 22, "ticks": ticks, "plot_top": 4}
