package io.jrdma.examples.noncontig;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import javax.imageio.ImageIO;

/**
 * A line chart with a logarithmic x axis (base 2, byte sizes) and a logarithmic y axis (base 10), written as SVG
 * (by hand) or PNG (through {@code java.awt} in headless mode and {@code javax.imageio}): one polyline with markers
 * per series, a legend at the right. Small on purpose: exactly what the benchmark plots need, no dependency.
 */
public final class Plot {

    /** Image width in pixels. */
    public static final int WIDTH = 960;
    /** Image height in pixels. */
    public static final int HEIGHT = 560;

    private static final int LEFT = 80;
    private static final int RIGHT = 190;
    private static final int TOP = 56;
    private static final int BOTTOM = 70;
    private static final int GRID = 0xDDDDDD;
    private static final int AXIS = 0x333333;
    private static final double MIN_LABEL_GAP = 52;

    /**
     * One line of the chart.
     *
     * @param name   the legend text
     * @param rgb    the colour, 0xRRGGBB
     * @param dashed whether the line is dashed
     * @param x      the x values (bytes), all positive
     * @param y      the y values, all positive; points that are not are left out
     */
    public record Series(String name, int rgb, boolean dashed, double[] x, double[] y) {
        /** Checks that x and y have the same length. */
        public Series {
            if (x.length != y.length) {
                throw new IllegalArgumentException("series " + name + ": " + x.length + " x values, " + y.length
                        + " y values");
            }
        }
    }

    /** Something to draw on: an SVG document or an image. Coordinates in pixels, y downwards. */
    interface Canvas {
        void line(double x1, double y1, double x2, double y2, int rgb, double width, boolean dashed);

        void polyline(String name, double[] xs, double[] ys, int n, int rgb, boolean dashed);

        void marker(double x, double y, int rgb);

        /** Text with its anchor at (x, y): align -1 start, 0 middle, 1 end; rotated a quarter turn if vertical. */
        void text(double x, double y, String s, int size, int align, boolean vertical);
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series;
    private final List<String> notes;
    private final double xLo;
    private final double xHi;
    private final double yLo;
    private final double yHi;

    /** A chart of {@code series} with the given title and axis labels, and {@code notes} under the legend. */
    public Plot(String title, String xLabel, String yLabel, List<Series> series, List<String> notes) {
        this.notes = List.copyOf(notes);
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.series = List.copyOf(series);
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double minY = Double.MAX_VALUE;
        double maxY = -Double.MAX_VALUE;
        for (Series s : series) {
            for (int i = 0; i < s.x().length; i++) {
                if (usable(s, i)) {
                    minX = Math.min(minX, s.x()[i]);
                    maxX = Math.max(maxX, s.x()[i]);
                    minY = Math.min(minY, s.y()[i]);
                    maxY = Math.max(maxY, s.y()[i]);
                }
            }
        }
        if (minX > maxX) { // nothing to draw: an empty chart over a nominal range
            minX = 1;
            maxX = 2;
            minY = 1;
            maxY = 10;
        }
        double lx = log2(minX);
        double hx = log2(maxX);
        if (hx - lx < 1e-9) {
            lx -= 1;
            hx += 1;
        }
        double pad = (hx - lx) * 0.03;
        xLo = lx - pad;
        xHi = hx + pad;
        yLo = Math.floor(Math.log10(minY));
        double top = Math.ceil(Math.log10(maxY));
        yHi = top <= yLo ? yLo + 1 : top;
    }

    private static boolean usable(Series s, int i) {
        double x = s.x()[i];
        double y = s.y()[i];
        return x > 0 && y > 0 && Double.isFinite(x) && Double.isFinite(y);
    }

    private static double log2(double v) {
        return Math.log(v) / Math.log(2);
    }

    /**
     * Writes the chart to {@code file}, as SVG or PNG by its extension.
     *
     * @throws IllegalArgumentException when the name ends in neither .svg nor .png
     */
    public void write(Path file) throws IOException {
        if (NoncontigConfig.plotFormat(file).equals("svg")) {
            Files.writeString(file, svg(), StandardCharsets.UTF_8);
        } else {
            PngCanvas.write(this, file);
        }
    }

    /** The chart as an SVG document. */
    public String svg() {
        SvgCanvas c = new SvgCanvas();
        draw(c);
        return c.finish();
    }

    private double px(double x) {
        return LEFT + (log2(x) - xLo) / (xHi - xLo) * (WIDTH - LEFT - RIGHT);
    }

    private double py(double y) {
        return HEIGHT - BOTTOM - (Math.log10(y) - yLo) / (yHi - yLo) * (HEIGHT - TOP - BOTTOM);
    }

    /** Draws everything on {@code c}. */
    void draw(Canvas c) {
        double left = LEFT;
        double right = WIDTH - RIGHT;
        double top = TOP;
        double bottom = HEIGHT - BOTTOM;
        drawYAxis(c, left, right);
        drawXAxis(c, top, bottom);
        c.line(left, bottom, right, bottom, AXIS, 1, false);
        c.line(left, top, left, bottom, AXIS, 1, false);
        c.text(WIDTH / 2.0 - RIGHT / 2.0 + LEFT / 2.0, 30, title, 16, 0, false);
        c.text((left + right) / 2, HEIGHT - 18, xLabel, 13, 0, false);
        c.text(22, (top + bottom) / 2, yLabel, 13, 0, true);
        for (Series s : series) {
            double[] xs = new double[s.x().length];
            double[] ys = new double[s.x().length];
            int n = 0;
            for (int i = 0; i < s.x().length; i++) {
                if (usable(s, i)) {
                    xs[n] = px(s.x()[i]);
                    ys[n] = py(s.y()[i]);
                    n++;
                }
            }
            c.polyline(s.name(), xs, ys, n, s.rgb(), s.dashed());
            for (int i = 0; i < n; i++) {
                c.marker(xs[i], ys[i], s.rgb());
            }
        }
        drawLegend(c, right + 20, top + 10);
    }

    private void drawYAxis(Canvas c, double left, double right) {
        boolean minor = yHi - yLo <= 3;
        for (int d = (int) yLo; d <= (int) yHi; d++) {
            for (int m : new int[] {1, 2, 5}) {
                double v = m * Math.pow(10, d);
                double lv = Math.log10(v);
                if (lv < yLo - 1e-9 || lv > yHi + 1e-9 || (m != 1 && !minor)) {
                    continue;
                }
                double y = py(v);
                c.line(left, y, right, y, GRID, m == 1 ? 1 : 0.5, false);
                c.text(left - 6, y + 4, number(v), 11, 1, false);
            }
        }
    }

    private void drawXAxis(Canvas c, double top, double bottom) {
        TreeSet<Double> xs = new TreeSet<>();
        for (Series s : series) {
            for (int i = 0; i < s.x().length; i++) {
                if (usable(s, i)) {
                    xs.add(s.x()[i]);
                }
            }
        }
        if (xs.size() > 24) { // too many to label: powers of two instead
            xs.clear();
            for (int e = (int) Math.ceil(xLo); e <= (int) Math.floor(xHi); e++) {
                xs.add(Math.pow(2, e));
            }
        }
        double lastLabel = -Double.MAX_VALUE;
        for (double v : xs) {
            double x = px(v);
            c.line(x, top, x, bottom, GRID, 0.5, false);
            c.line(x, bottom, x, bottom + 4, AXIS, 1, false);
            if (x - lastLabel >= MIN_LABEL_GAP) {
                c.text(x, bottom + 18, bytes(v), 11, 0, false);
                lastLabel = x;
            }
        }
    }

    private void drawLegend(Canvas c, double x, double y) {
        for (Series s : series) {
            c.line(x, y, x + 30, y, s.rgb(), 2, s.dashed());
            c.marker(x + 15, y, s.rgb());
            c.text(x + 38, y + 4, s.name(), 12, -1, false);
            y += 22;
        }
        y += 10;
        for (String note : notes) {
            c.text(x, y, note, 11, -1, false);
            y += 16;
        }
    }

    /** A y tick label: 0.5, 20, 1000, 20000. */
    static String number(double v) {
        if (v >= 1) {
            return String.format(Locale.ROOT, "%d", Math.round(v));
        }
        return String.format(Locale.ROOT, "%s", Double.toString(v).replaceAll("0+$", ""));
    }

    /** A byte count as 512 B, 4 KiB, 1.5 MiB. */
    static String bytes(double v) {
        String[] units = {"B", "KiB", "MiB", "GiB"};
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return (v == Math.rint(v) ? String.format(Locale.ROOT, "%d", (long) v)
                : String.format(Locale.ROOT, "%.1f", v)) + " " + units[u];
    }

    /** The SVG backend: a document built as text. */
    static final class SvgCanvas implements Canvas {
        private final StringBuilder sb = new StringBuilder(16 << 10);

        SvgCanvas() {
            sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                    .append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                            + "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\">%n",
                            WIDTH, HEIGHT, WIDTH, HEIGHT))
                    .append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        }

        @Override
        public void line(double x1, double y1, double x2, double y2, int rgb, double width, boolean dashed) {
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                    + "stroke=\"%s\" stroke-width=\"%.1f\"%s/>%n", x1, y1, x2, y2, color(rgb), width,
                    dashed ? " stroke-dasharray=\"6,4\"" : ""));
        }

        @Override
        public void polyline(String name, double[] xs, double[] ys, int n, int rgb, boolean dashed) {
            sb.append("<polyline data-series=\"").append(escape(name)).append("\" fill=\"none\" stroke=\"")
                    .append(color(rgb)).append("\" stroke-width=\"2\"")
                    .append(dashed ? " stroke-dasharray=\"6,4\"" : "").append(" points=\"");
            for (int i = 0; i < n; i++) {
                sb.append(String.format(Locale.ROOT, i == 0 ? "%.1f,%.1f" : " %.1f,%.1f", xs[i], ys[i]));
            }
            sb.append("\"/>\n");
        }

        @Override
        public void marker(double x, double y, int rgb) {
            sb.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", x, y,
                    color(rgb)));
        }

        @Override
        public void text(double x, double y, String s, int size, int align, boolean vertical) {
            String anchor = align < 0 ? "start" : align == 0 ? "middle" : "end";
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s>",
                    x, y, size, anchor, vertical ? String.format(Locale.ROOT, " transform=\"rotate(-90 %.1f %.1f)\"",
                            x, y) : "")).append(escape(s)).append("</text>\n");
        }

        String finish() {
            return sb.append("</svg>\n").toString();
        }

        private static String color(int rgb) {
            return String.format("#%06x", rgb & 0xFFFFFF);
        }

        private static String escape(String s) {
            return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
        }
    }

    /** The PNG backend, drawing with java.awt in headless mode. Loaded only when a PNG is asked for. */
    static final class PngCanvas implements Canvas {
        private final Graphics2D g;

        private PngCanvas(Graphics2D g) {
            this.g = g;
        }

        static void write(Plot plot, Path file) throws IOException {
            if (System.getProperty("java.awt.headless") == null) {
                System.setProperty("java.awt.headless", "true"); // no display needed, before AWT starts
            }
            BufferedImage img = new BufferedImage(WIDTH, HEIGHT,
                    BufferedImage.TYPE_INT_RGB);
            Graphics2D g = img.createGraphics();
            try {
                g.setColor(Color.WHITE);
                g.fillRect(0, 0, WIDTH, HEIGHT);
                g.setRenderingHint(RenderingHints.KEY_ANTIALIASING,
                        RenderingHints.VALUE_ANTIALIAS_ON);
                g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING,
                        RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
                plot.draw(new PngCanvas(g));
            } catch (InternalError | LinkageError e) { // no fonts or native AWT: say what to do instead
                throw new IOException("cannot draw the PNG (" + e + "); write an .svg plot instead", e);
            } finally {
                g.dispose();
            }
            if (!ImageIO.write(img, "png", file.toFile())) {
                throw new IOException("no PNG writer in this JDK; write an .svg plot instead");
            }
        }

        private void stroke(int rgb, double width, boolean dashed) {
            g.setColor(new Color(rgb));
            g.setStroke(dashed ? new BasicStroke((float) width, BasicStroke.CAP_BUTT,
                    BasicStroke.JOIN_ROUND, 10f, new float[] {6f, 4f}, 0f)
                    : new BasicStroke((float) width));
        }

        @Override
        public void line(double x1, double y1, double x2, double y2, int rgb, double width, boolean dashed) {
            stroke(rgb, width, dashed);
            g.draw(new Line2D.Double(x1, y1, x2, y2));
        }

        @Override
        public void polyline(String name, double[] xs, double[] ys, int n, int rgb, boolean dashed) {
            if (n < 2) {
                return;
            }
            stroke(rgb, 2, dashed);
            Path2D.Double path = new Path2D.Double();
            path.moveTo(xs[0], ys[0]);
            for (int i = 1; i < n; i++) {
                path.lineTo(xs[i], ys[i]);
            }
            g.draw(path);
        }

        @Override
        public void marker(double x, double y, int rgb) {
            g.setColor(new Color(rgb));
            g.fill(new Ellipse2D.Double(x - 3, y - 3, 6, 6));
        }

        @Override
        public void text(double x, double y, String s, int size, int align, boolean vertical) {
            g.setColor(new Color(AXIS));
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, size));
            double w = g.getFontMetrics().stringWidth(s);
            double shift = align < 0 ? 0 : align == 0 ? w / 2 : w;
            if (!vertical) {
                g.drawString(s, (float) (x - shift), (float) y);
                return;
            }
            AffineTransform saved = g.getTransform();
            g.rotate(-Math.PI / 2, x, y);
            g.drawString(s, (float) (x - shift), (float) y);
            g.setTransform(saved);
        }
    }

    /** Builds a plot of {@code results}: MB/s against message size, one series per method, in method order. */
    public static Plot of(String title, List<Result> results) {
        List<Series> out = new ArrayList<>();
        for (Method m : Method.values()) {
            List<Result> rs = results.stream().filter(r -> r.method() == m).toList();
            if (rs.isEmpty()) {
                continue;
            }
            double[] x = rs.stream().mapToDouble(r -> r.layout().messageBytes()).toArray();
            double[] y = rs.stream().mapToDouble(Result::mbPerSecond).toArray();
            int rgb = switch (m.operation()) {
                case WRITE -> 0x1F77B4;
                case READ -> 0x2CA02C;
                case SEND_RECV -> 0xD62728;
            };
            out.add(new Series(m.label(), rgb, !m.zeroCopy(), x, y));
        }
        return new Plot(title, "message size (block_size x block_num)", "MB/s (median message)", out,
                List.of("solid: SGE lists", "(zero-copy)", "dashed: CPU pack/unpack", "+ contiguous transfer"));
    }
}
