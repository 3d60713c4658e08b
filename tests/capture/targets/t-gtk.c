/* t-gtk — a GTK4 application that opens a window with a few widgets,
 * lets it draw, and quits; prints one line. Run under Xvfb. */
#include <gtk/gtk.h>

static gboolean
quit_cb (gpointer data)
{
  g_application_quit (G_APPLICATION (data));
  return G_SOURCE_REMOVE;
}

static void
activate (GtkApplication *app,
          gpointer        user_data)
{
  GtkWidget *window = gtk_application_window_new (app);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_box_append (GTK_BOX (box), gtk_label_new ("Heaplens"));
  gtk_box_append (GTK_BOX (box), gtk_button_new_with_label ("Record"));
  GtkStringList *items = gtk_string_list_new (NULL);
  for (int i = 0; i < 200; i++)
    {
      char text[32];
      g_snprintf (text, sizeof text, "row %d", i);
      gtk_string_list_append (items, text);
    }
  gtk_box_append (GTK_BOX (box), gtk_drop_down_new (G_LIST_MODEL (items), NULL));
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_present (GTK_WINDOW (window));
  g_timeout_add (400, quit_cb, app);
}

int
main (int    argc,
      char **argv)
{
  GtkApplication *app = gtk_application_new ("org.heaplens.TestCapture", G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "activate", G_CALLBACK (activate), NULL);
  int status = g_application_run (G_APPLICATION (app), argc, argv);
  g_object_unref (app);
  g_print ("t-gtk: done\n");
  return status;
}
