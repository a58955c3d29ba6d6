package io.jrdma.tools;

import java.io.File;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The class path of a child JVM that runs this JVM's code ({@code jrdma scale}'s sides, {@code jrdma bench}'s
 * children, the tests' peers): this JVM's class path and module path together. {@code java -jar} gives the tools
 * jar alone (its manifest names lib/); on the module path (the tests, patched into this module) the child still
 * runs everything from its class path, with {@code --enable-native-access=ALL-UNNAMED}.
 */
public final class ChildClassPath {

    private ChildClassPath() {
    }

    /** {@code java.class.path}, then the {@code jdk.module.path} entries not already on it. */
    public static String get() {
        Set<String> entries = new LinkedHashSet<>();
        for (String property : new String[] {"java.class.path", "jdk.module.path"}) {
            String value = System.getProperty(property, "");
            for (String e : value.split(File.pathSeparator)) {
                if (!e.isEmpty()) {
                    entries.add(e);
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
