package io.jrdma.tools.compare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code key=value} arguments the runner gives a benchmark child, and the {@code key=value} fields of the result
 * line a child prints. Missing or malformed values fail with a message naming the key.
 */
final class Params {

    private final Map<String, String> map;

    private Params(Map<String, String> map) {
        this.map = map;
    }

    /** No parameters. */
    static Params empty() {
        return new Params(new LinkedHashMap<>());
    }

    /**
     * Parses {@code key=value} words; words without {@code =} are refused.
     *
     * @throws IllegalArgumentException on a word that is not {@code key=value}
     */
    static Params parse(String[] words, int from) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = from; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not key=value: '" + words[i] + "'");
            }
            m.put(words[i].substring(0, eq), words[i].substring(eq + 1));
        }
        return new Params(m);
    }

    /** A copy with {@code key} set to {@code value}. */
    Params with(String key, Object value) {
        Map<String, String> m = new LinkedHashMap<>(map);
        m.put(key, String.valueOf(value));
        return new Params(m);
    }

    boolean has(String key) {
        return map.containsKey(key);
    }

    String str(String key) {
        String v = map.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing parameter " + key);
        }
        return v;
    }

    String str(String key, String dflt) {
        return map.getOrDefault(key, dflt);
    }

    long lng(String key) {
        String v = str(key);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter " + key + " is not a number: '" + v + "'", e);
        }
    }

    long lng(String key, long dflt) {
        return has(key) ? lng(key) : dflt;
    }

    int integer(String key) {
        return Math.toIntExact(lng(key));
    }

    int integer(String key, int dflt) {
        return has(key) ? integer(key) : dflt;
    }

    double dbl(String key) {
        String v = str(key);
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("field " + key + " is not a number: '" + v + "'", e);
        }
    }

    /** The parameters as {@code key=value} words, in insertion order. */
    List<String> words() {
        List<String> w = new ArrayList<>(map.size());
        map.forEach((k, v) -> w.add(k + "=" + v));
        return w;
    }

    @Override
    public String toString() {
        return String.join(" ", words());
    }
}
